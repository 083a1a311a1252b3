import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/http/http-errors.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import { ListPetsQuerySchema, PetIdSchema } from '../../shared/pets/parameters.ts';
import { NewPetSchema, PET_NAME_MAX_LENGTH } from '../../shared/pets/schemas.ts';

/** The ApiError `fn` throws, as code + message + status (fails the test when it does not throw). */
function errorOf(fn: () => unknown): { code: string; message: string; status: number } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).toBody();
  }
  throw new Error('expected an ApiError, but nothing was thrown');
}

function parseNewPet(input: unknown) {
  return parseOrThrow(NewPetSchema, input, 'body', 'invalid_body');
}

function bodyError(input: unknown) {
  return errorOf(() => parseNewPet(input));
}

describe('parseOrThrow with NewPetSchema', () => {
  it('defaults status to available and keeps the other fields as sent', () => {
    expect(parseNewPet({ name: ' Rex ', categoryId: 7 })).toEqual({
      name: ' Rex ',
      categoryId: 7,
      status: 'available',
    });
  });

  it('accepts each PetStatus value', () => {
    for (const status of ['available', 'pending', 'sold']) {
      expect(parseNewPet({ name: 'Rex', categoryId: 1, status }).status).toBe(status);
    }
  });

  it('accepts a name of 100 code points even when they are emoji (200 UTF-16 units)', () => {
    const name = '🐶'.repeat(PET_NAME_MAX_LENGTH);
    expect(name).toHaveLength(200);
    expect(parseNewPet({ name, categoryId: 1 }).name).toBe(name);
  });

  it('rejects a name of 101 code points', () => {
    expect(bodyError({ name: 'a'.repeat(101), categoryId: 1 })).toEqual({
      code: 'invalid_body',
      message: 'name: must be at most 100 characters',
      status: 400,
    });
    expect(bodyError({ name: '🐶'.repeat(101), categoryId: 1 }).message).toBe(
      'name: must be at most 100 characters',
    );
  });

  it('rejects a name holding a lone surrogate, which storage could not keep as sent', () => {
    // One character long, so the message must name the surrogate, not the length.
    for (const name of ['\ud800', 'Rex\udc00', `${'a'.repeat(120)}\udfff`]) {
      expect(bodyError({ name, categoryId: 1 }).message).toBe(
        'name: must not contain a lone UTF-16 surrogate (such as \\ud800): it is half of a character and cannot be stored',
      );
    }
    expect(parseNewPet({ name: 'Rex 🐶', categoryId: 1 }).name).toBe('Rex 🐶');
  });

  it('rejects an empty or white-space-only name', () => {
    for (const name of ['', ' ', '\t\n', '\u00a0\u3000']) {
      expect(bodyError({ name, categoryId: 1 })).toEqual({
        code: 'invalid_body',
        message: 'name: must contain at least one non-space character',
        status: 400,
      });
    }
  });

  it('rejects a name that is not a string', () => {
    for (const name of [5, null, true, ['Rex'], { first: 'Rex' }]) {
      expect(bodyError({ name, categoryId: 1 }).message).toBe('name: must be a string');
    }
  });

  it('names the missing required field', () => {
    expect(bodyError({ categoryId: 1 }).message).toBe('name: is required');
    expect(bodyError({ name: 'Rex' }).message).toBe('categoryId: is required');
  });

  it('accepts categoryId 1 and 2^53 - 1', () => {
    expect(parseNewPet({ name: 'Rex', categoryId: 1 }).categoryId).toBe(1);
    expect(parseNewPet({ name: 'Rex', categoryId: Number.MAX_SAFE_INTEGER }).categoryId).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('rejects a categoryId below 1, above 2^53 - 1, fractional or not a number', () => {
    const cases: [unknown, string][] = [
      [0, 'categoryId: must be at least 1'],
      [-1, 'categoryId: must be at least 1'],
      [2 ** 53, 'categoryId: must be at most 9007199254740991'],
      [1.5, 'categoryId: must be an integer'],
      ['5', 'categoryId: must be an integer'],
      [null, 'categoryId: must be an integer'],
      [Number.NaN, 'categoryId: must be an integer'],
    ];
    for (const [categoryId, message] of cases) {
      expect(bodyError({ name: 'Rex', categoryId }), String(categoryId)).toEqual({
        code: 'invalid_body',
        message,
        status: 400,
      });
    }
  });

  it('rejects a status outside the enumeration, including other cases and null', () => {
    for (const status of ['Available', 'AVAILABLE', '', 'adopted', null]) {
      expect(bodyError({ name: 'Rex', categoryId: 1, status }).message).toBe(
        'status: must be one of available, pending, sold',
      );
    }
  });

  it('rejects an unknown field rather than dropping it', () => {
    expect(bodyError({ name: 'Rex', categoryId: 1, colour: 'brown' })).toEqual({
      code: 'invalid_body',
      message: 'colour: is not allowed',
      status: 400,
    });
  });

  it('rejects a body that is not a JSON object', () => {
    for (const input of [null, 'Rex', 42, true, [], [{ name: 'Rex', categoryId: 1 }]]) {
      expect(bodyError(input)).toEqual({
        code: 'invalid_body',
        message: 'body: must be a JSON object',
        status: 400,
      });
    }
  });
});

describe('parseOrThrow with ListPetsQuerySchema', () => {
  function parseQuery(input: Record<string, string>) {
    return parseOrThrow(ListPetsQuerySchema, input, 'query', 'invalid_parameter');
  }

  it('defaults limit to 20 and leaves status unset', () => {
    expect(parseQuery({})).toEqual({ limit: 20 });
  });

  it('converts limit to a number within 1 to 100', () => {
    expect(parseQuery({ limit: '1' })).toEqual({ limit: 1 });
    expect(parseQuery({ limit: '100', status: 'sold' })).toEqual({ limit: 100, status: 'sold' });
  });

  it('rejects a limit that is not an integer from 1 to 100, naming the parameter', () => {
    for (const limit of ['0', '101', '1.5', '-1', 'abc', '', ' 5', '1e2', '9'.repeat(30)]) {
      expect(
        errorOf(() => parseQuery({ limit })),
        limit,
      ).toEqual({
        code: 'invalid_parameter',
        message: 'limit: must be an integer from 1 to 100',
        status: 400,
      });
    }
  });

  it('rejects a status outside the enumeration, naming the parameter', () => {
    for (const status of ['Available', '', 'bogus']) {
      expect(errorOf(() => parseQuery({ status }))).toEqual({
        code: 'invalid_parameter',
        message: 'status: must be one of available, pending, sold',
        status: 400,
      });
    }
  });
});

describe('parseOrThrow with PetIdSchema', () => {
  function parsePetId(input: string | undefined) {
    return parseOrThrow(PetIdSchema, input, 'petId', 'invalid_parameter');
  }

  it('converts decimal digits to a number', () => {
    expect(parsePetId('42')).toBe(42);
  });

  it('rejects a petId that is not a positive integer', () => {
    for (const petId of ['abc', '0', '-1', '1.5', '', '0x10']) {
      expect(errorOf(() => parsePetId(petId))).toEqual({
        code: 'invalid_parameter',
        message: 'petId: must be a positive integer',
        status: 400,
      });
    }
  });

  it('says a missing petId is required', () => {
    expect(errorOf(() => parsePetId(undefined)).message).toBe('petId: is required');
  });
});
