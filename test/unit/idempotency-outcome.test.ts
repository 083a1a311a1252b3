/**
 * The idempotency outcome rules without a store (shared/idempotency/outcome.ts): when a record
 * binds its key, what a write that met something at its key throws, how a repeat is answered.
 */
import { describe, expect, it } from 'vitest';
import {
  IdempotencyInProgressError,
  IdempotencyKeyUsedError,
} from '../../shared/idempotency/errors.ts';
import { liveFrom, refuseUnlessFree, repeatAnswer } from '../../shared/idempotency/outcome.ts';

const response = { statusCode: 201, headers: { Location: '/v1/pets/1' }, body: '{"id":1}' };
const nowMs = Date.parse('2030-01-01T00:00:00.500Z');
const nowSeconds = Date.parse('2030-01-01T00:00:00Z') / 1000;
const record = (expiresAt: number) =>
  ({ kind: 'record', record: { fingerprint: 'f', response, expiresAt } }) as const;

describe('the idempotency outcome rules', () => {
  it('keeps a record live through the second it expires in', () => {
    expect(liveFrom(nowMs)).toBe(nowSeconds);
    expect(() => refuseUnlessFree(record(nowSeconds), nowMs)).toThrow(IdempotencyKeyUsedError);
    expect(() => refuseUnlessFree(record(nowSeconds - 1), nowMs)).not.toThrow();
  });

  it('lets a write land when nothing is at its key', () => {
    expect(() => refuseUnlessFree({ kind: 'free' }, nowMs)).not.toThrow();
  });

  it('refuses a write that met a live record with the record (no expiry) and the cause', () => {
    const cause = new Error('cancelled');

    let thrown: unknown;
    try {
      refuseUnlessFree(record(nowSeconds + 60), nowMs, { cause });
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(IdempotencyKeyUsedError);
    expect(thrown).toMatchObject({ found: { fingerprint: 'f', response }, cause });
    expect((thrown as IdempotencyKeyUsedError).found).not.toHaveProperty('expiresAt');
  });

  it('tells a write that met another write in flight to retry after 1 second', () => {
    expect(() => refuseUnlessFree({ kind: 'in flight' }, nowMs)).toThrow(
      IdempotencyInProgressError,
    );
    expect(() => refuseUnlessFree({ kind: 'in flight' }, nowMs)).toThrow(/retry after 1 second\./);
  });

  it('replays a repeat of the same body and refuses one of another', () => {
    const found = { fingerprint: 'f', response };

    expect(repeatAnswer({ id: 'k#1', fingerprint: 'f' }, found)).toBe('replay');
    expect(repeatAnswer({ id: 'k#1', fingerprint: 'g' }, found)).toBe('mismatch');
  });
});
