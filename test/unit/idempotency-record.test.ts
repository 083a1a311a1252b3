/**
 * The idempotency record's rules without a store (shared/idempotency/record.ts): when a record
 * binds its key, and what a repeat of the key comes to.
 */
import { describe, expect, it } from 'vitest';
import { isLive, liveFrom, recordExpiry, repeatOutcome } from '../../shared/idempotency/record.ts';

const nowMs = Date.parse('2030-01-01T00:00:00.500Z');
const nowSeconds = Date.parse('2030-01-01T00:00:00Z') / 1000;
const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const record = { id: 'k#1', fingerprint: 'f', result: pet, expiresAt: nowSeconds + 60 };

describe('the idempotency record rules', () => {
  it('keeps a record live through the second it expires in', () => {
    expect(liveFrom(nowMs)).toBe(nowSeconds);
    expect(isLive({ expiresAt: nowSeconds }, nowMs)).toBe(true);
    expect(isLive({ expiresAt: nowSeconds - 1 }, nowMs)).toBe(false);
  });

  it('expires a record 24 hours after the second it was written in', () => {
    expect(recordExpiry(nowMs)).toBe(nowSeconds + 86_400);
  });

  it('replays the result to a repeat of the same body and refuses one of another', () => {
    expect(repeatOutcome({ id: 'k#1', fingerprint: 'f' }, record)).toEqual({
      status: 'replayed',
      result: pet,
    });
    expect(repeatOutcome({ id: 'k#1', fingerprint: 'g' }, record)).toEqual({ status: 'reused' });
  });
});
