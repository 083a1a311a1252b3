import { describe, expect, it } from 'vitest';
import {
  InvalidLimitsError,
  limitsFromContext,
  limitsOfPlan,
  type StandardPlanId,
  usagePlanSettings,
  validateLimits,
} from '../../shared/plans.ts';
import { InMemoryRateLimiter } from '../support/in-memory-rate-limiter.ts';

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
  it.each([
    ['free', 60],
    ['pro', 300],
    ['business', 1_000],
  ] as [StandardPlanId, number][])(
    "has the limiter admit a %s key %i times in a UTC minute and refuse the next (the spec's figures)",
    async (plan, perMinute) => {
      const limiter = new InMemoryRateLimiter();
      const minute = Date.UTC(2026, 0, 1, 12, 0);
      const verdicts = [];
      for (let request = 0; request <= perMinute; request += 1) {
        verdicts.push(
          (await limiter.consume('key', limitsOfPlan(plan), minute + request)).admitted,
        );
      }

      expect(verdicts.filter(Boolean)).toHaveLength(perMinute);
      expect(verdicts.at(-1)).toBe(false);
    },
  );

  it('gives an Enterprise key its own limits, and none without them', () => {
    expect(limitsOfPlan('enterprise', { perMinute: 7, perDay: 70 })).toEqual({
      perMinute: 7,
      perDay: 70,
    });
    expect(() => limitsOfPlan('enterprise')).toThrow(InvalidLimitsError);
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
  it('is what a spread key counts: 600,000 per minute (10,000 requests per second), all day', () => {
    const ceiling = { perMinute: 600_000, perDay: 600_000 * 1_440 };

    expect(validateLimits(ceiling)).toEqual(ceiling);
    expect(() => validateLimits({ ...ceiling, perMinute: 600_001 })).toThrow(
      'per-minute limit must be a whole number from 1 to 600000',
    );
    expect(() => validateLimits({ ...ceiling, perDay: ceiling.perDay + 1 })).toThrow(
      `per-day limit must be a whole number from the per-minute limit (600000) to ${ceiling.perDay}`,
    );
  });
});
