/**
 * listPets (GET /pets) end to end over the local gateway (test/support/local-api.ts): pages of at
 * most `limit` pets, the status filter in ascending id order, and 400 invalid_parameter for a bad
 * `limit`, a bad `status` or an unknown query parameter.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAGE_LIMIT } from '../../shared/pets/parameters.ts';
import { PET_STATUSES, type Pet, PetSchema } from '../../shared/pets/schemas.ts';
import { expectError } from '../support/error-responses.ts';
import { api, createPet, send, serveLocalApi } from '../support/local-api.ts';

serveLocalApi();

describe('listPets (GET /pets)', () => {
  /** Pets created for this block, more than one default page, every status represented. */
  const created: Pet[] = [];

  beforeAll(async () => {
    for (let i = 0; i < PAGE_LIMIT.default + 5; i++) {
      created.push(await createPet(`List pet ${i}`, PET_STATUSES[i % PET_STATUSES.length]));
    }
  });

  it('answers 200 with 20 pets when limit is omitted and more exist', async () => {
    const { data, response } = await api.GET('/pets');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(data).toHaveLength(PAGE_LIMIT.default);
    for (const pet of data ?? []) expect(v.is(PetSchema, pet)).toBe(true);
  });

  it('answers 200 with at most limit pets', async () => {
    const three = await api.GET('/pets', { params: { query: { limit: 3 } } });
    const all = await api.GET('/pets', { params: { query: { limit: PAGE_LIMIT.max } } });

    expect(three.response.status).toBe(200);
    expect(three.data).toHaveLength(3);
    expect(all.response.status).toBe(200);
    expect(all.data?.length).toBeGreaterThanOrEqual(created.length);
    expect(all.data?.length).toBeLessThanOrEqual(PAGE_LIMIT.max);
  });

  it.each(PET_STATUSES)('answers only %s pets, in ascending id order', async (status) => {
    const { data, response } = await api.GET('/pets', {
      params: { query: { status, limit: PAGE_LIMIT.max } },
    });

    expect(response.status).toBe(200);
    const ids = (data ?? []).map((pet) => pet.id);
    expect(data?.every((pet) => pet.status === status)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const createdWithStatus = created.filter((pet) => pet.status === status);
    expect(data).toEqual(expect.arrayContaining(createdWithStatus));
  });

  it('answers the lowest ids of the status when limit cuts the list', async () => {
    const { data } = await api.GET('/pets', { params: { query: { status: 'sold', limit: 2 } } });
    const { data: allSold } = await api.GET('/pets', {
      params: { query: { status: 'sold', limit: PAGE_LIMIT.max } },
    });

    expect(data).toEqual(allSold?.slice(0, 2));
    expect(data).toHaveLength(2);
  });

  it.each(['0', '101', '1.5', '-1', 'abc', ''])(
    'answers 400 invalid_parameter naming limit when limit is %j',
    async (limit) => {
      const { response, body } = await send('GET', `/pets?limit=${encodeURIComponent(limit)}`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'limit' });
    },
  );

  it.each(['Available', 'SOLD', '', 'lost'])(
    'answers 400 invalid_parameter naming status when status is %j',
    async (status) => {
      const { response, body } = await send('GET', `/pets?status=${encodeURIComponent(status)}`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'status' });
    },
  );

  it.each(['colour', 'constructor', '__proto__', 'toString'])(
    'answers 400 invalid_parameter naming the unknown query parameter %j',
    async (name) => {
      const { response, body } = await send('GET', `/pets?${name}=1`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: name });
    },
  );
});
