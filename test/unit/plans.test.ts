import { describe, expect, it } from 'vitest';
import {
  limitsFromContext,
  limitsOfPlan,
  MAX_PER_DAY,
  MAX_PER_MINUTE,
  usagePlanSettings,
  validateLimits,
} from '../../shared/plans.ts';

describe('limitsFromContext', () => {
  it('reads the limits as the authorizer returns them and as API Gateway passes them on', () => {
    expect(limitsFromContext({ perMinute: 60, perDay: 1000 })).toEqual({
      perMinute: 60,
      perDay: 1000,
    });
    expect(limitsFromContext({ perMinute: '60', perDay: '1000' })).toEqual({
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
    expect(limitsFromContext(context)).toBeUndefined();
  });
});

describe('limitsOfPlan and usagePlanSettings', () => {
  it('gives a standard plan its numbers and an Enterprise key its own', () => {
    expect(limitsOfPlan('pro')).toEqual({ perMinute: 300, perDay: 10_000 });
    expect(limitsOfPlan('enterprise', { perMinute: 7, perDay: 70 })).toEqual({
      perMinute: 7,
      perDay: 70,
    });
    expect(() => limitsOfPlan('enterprise')).toThrow(RangeError);
  });

  it('sets the edge backstop at twice the limits, at the per-minute figure spread over the minute', () => {
    expect(usagePlanSettings({ perMinute: 60, perDay: 1000 })).toEqual({
      rateLimit: 1,
      burstLimit: 120,
      quotaPerDay: 2000,
    });
  });
});

describe('the Enterprise ceiling', () => {
  it('is what a spread key counts: 600,000 per minute (10,000 requests per second)', () => {
    expect(MAX_PER_MINUTE).toBe(600_000);
    expect(MAX_PER_DAY).toBe(600_000 * 1_440);
    expect(validateLimits({ perMinute: 600_000, perDay: MAX_PER_DAY })).toEqual({
      perMinute: 600_000,
      perDay: MAX_PER_DAY,
    });
    expect(() => validateLimits({ perMinute: 600_001, perDay: MAX_PER_DAY })).toThrow(
      'per-minute limit must be a whole number from 1 to 600000',
    );
  });
});
