import { describe, expect, it } from 'vitest';
import { limitsFor, limitsInContext, usagePlanSettings } from '../../shared/plans.ts';

describe('limitsInContext', () => {
  it('reads the limits as the authorizer returns them and as API Gateway passes them on', () => {
    expect(limitsInContext({ perMinute: 60, perDay: 1000 })).toEqual({
      perMinute: 60,
      perDay: 1000,
    });
    expect(limitsInContext({ perMinute: '60', perDay: '1000' })).toEqual({
      perMinute: 60,
      perDay: 1000,
    });
  });

  it.each([
    ['no context', undefined],
    ['a missing limit', { perMinute: '60' }],
    ['a non-number', { perMinute: 'sixty', perDay: '1000' }],
    ['a day below the minute', { perMinute: '60', perDay: '59' }],
  ])('gives undefined for %s', (_, context) => {
    expect(limitsInContext(context)).toBeUndefined();
  });
});

describe('limitsFor and usagePlanSettings', () => {
  it('gives a standard plan its numbers and an Enterprise key its own', () => {
    expect(limitsFor('pro')).toEqual({ perMinute: 300, perDay: 10_000 });
    expect(limitsFor('enterprise', { perMinute: 7, perDay: 70 })).toEqual({
      perMinute: 7,
      perDay: 70,
    });
    expect(() => limitsFor('enterprise')).toThrow(RangeError);
  });

  it('sets the edge backstop at twice the limits, at the per-minute figure spread over the minute', () => {
    expect(usagePlanSettings({ perMinute: 60, perDay: 1000 })).toEqual({
      rateLimit: 1,
      burstLimit: 120,
      quotaPerDay: 2000,
    });
  });
});
