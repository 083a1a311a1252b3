/**
 * The one error mapping (`apiErrorOf`) knows each domain error by its class's `name`: every class
 * the domain's errors modules export gets an answer, and a built-in error none (a bug: 500).
 */
import { describe, expect, it } from 'vitest';
import * as audit from '../../shared/audit/audit-errors.ts';
import * as events from '../../shared/events/event-errors.ts';
import { apiErrorOf } from '../../shared/http/error-mapping.ts';
import { ApiError } from '../../shared/http/http-errors.ts';
import * as idempotency from '../../shared/idempotency/idempotency-errors.ts';
import * as keys from '../../shared/keys/key-errors.ts';
import * as pets from '../../shared/pets/pet-errors.ts';
import { InvalidLimitsError } from '../../shared/plans.ts';
import * as rateLimit from '../../shared/rate-limit/rate-limit-errors.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';

/** Each error class `modules` export, by name. */
function errorClasses(...modules: object[]): [string, new (...args: unknown[]) => Error][] {
  return modules.flatMap((module) =>
    Object.entries(module).filter(
      (entry): entry is [string, new (...args: unknown[]) => Error] =>
        typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
    ),
  );
}

describe('apiErrorOf', () => {
  const classes = errorClasses(audit, events, idempotency, keys, pets, rateLimit, {
    InvalidLimitsError,
    StoreUnavailableError,
  });

  it.each(classes)('answers %s with an Error answer of its own', (name, type) => {
    const error = new type('a message', 1);

    expect(error.name).toBe(name);
    expect(apiErrorOf(error)).toBeInstanceOf(ApiError);
  });

  it.each([
    new RangeError('Invalid time value'),
    new TypeError("Cannot read properties of undefined (reading 'id')"),
    new Error('An unexpected error'),
  ])('answers nothing to a built-in %s: the error handler answers 500', (error) => {
    expect(apiErrorOf(error)).toBeUndefined();
  });

  it('knows at least the errors of both APIs', () => {
    expect(classes.map(([name]) => name)).toEqual(
      expect.arrayContaining(['PetNotFoundError', 'KeyNotFoundError', 'InvalidAuditWindowError']),
    );
  });
});
