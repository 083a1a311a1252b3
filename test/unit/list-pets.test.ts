import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/list-pets.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { PET_STATUSES, type Pet } from '../../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../../shared/pets/store.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';

/** `GET /pets` with this query string (e.g. `limit=5&status=sold`). */
function listPets(query = '') {
  return invoke(
    handler,
    authorizedEvent({
      method: 'GET',
      resource: '/pets',
      path: '/pets',
      query: new URLSearchParams(query),
    }),
    createLambdaContext('list-pets'),
  );
}

/** The 25 pets of this file, in creation (= id) order; statuses cycle available, pending, sold. */
let pets: Pet[] = [];

beforeAll(async () => {
  const store = petStoreFromEnv();
  pets = [];
  for (let i = 0; i < 25; i++) {
    const status = PET_STATUSES[i % PET_STATUSES.length] ?? 'available';
    pets.push(await store.createPet({ name: `Pet ${i}`, categoryId: 1 + (i % 4), status }));
  }
});

describe('listPets', () => {
  it('answers 200 with 20 of the stored pets when no limit is given', async () => {
    const response = await listPets();

    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json' });
    const listed = JSON.parse(response.body) as Pet[];
    expect(listed).toHaveLength(20);
    expect(new Set(listed.map((pet) => pet.id)).size).toBe(20);
    for (const pet of listed) expect(pets).toContainEqual(pet);
  });

  it('honours limit', async () => {
    for (const limit of [1, 5, 24]) {
      const listed = JSON.parse((await listPets(`limit=${limit}`)).body) as Pet[];
      expect(listed).toHaveLength(limit);
      for (const pet of listed) expect(pets).toContainEqual(pet);
    }
  });

  it('answers every pet once when limit exceeds their number', async () => {
    const listed = JSON.parse((await listPets('limit=100')).body) as Pet[];
    expect(listed.sort((a, b) => a.id - b.id)).toEqual(pets);
  });

  it('filters by status, in ascending id', async () => {
    for (const status of PET_STATUSES) {
      const response = await listPets(`status=${status}`);
      expect(response).toEqual({
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(pets.filter((pet) => pet.status === status)),
      });
    }
  });

  it('applies limit to the filtered pets, lowest ids first', async () => {
    const response = await listPets('status=sold&limit=3');
    expect(response.body).toBe(
      JSON.stringify(pets.filter((pet) => pet.status === 'sold').slice(0, 3)),
    );
  });

  it('answers 400 invalid_parameter naming limit when it is not an integer from 1 to 100', async () => {
    for (const limit of ['0', '101', '1.5', '-1', 'abc', '', '1e1', '9'.repeat(25)]) {
      expect(await listPets(new URLSearchParams({ limit }).toString()), limit).toEqual(
        errorResponse(400, 'invalid_parameter', 'limit: must be an integer from 1 to 100'),
      );
    }
  });

  it('answers 400 invalid_parameter naming status when it is not exactly a PetStatus', async () => {
    for (const status of ['Available', 'SOLD', '', 'bogus']) {
      expect(await listPets(new URLSearchParams({ status }).toString()), status).toEqual(
        errorResponse(400, 'invalid_parameter', 'status: must be one of available, pending, sold'),
      );
    }
  });

  it('answers 400 invalid_parameter for an unknown query parameter', async () => {
    expect(await listPets('page=2')).toEqual(
      errorResponse(400, 'invalid_parameter', 'page: is not allowed'),
    );
    expect(await listPets('limit=5&Status=sold')).toEqual(
      errorResponse(400, 'invalid_parameter', 'Status: is not allowed'),
    );
  });

  it('answers 400 invalid_parameter for a parameter named like an Object.prototype member', async () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const event = authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets' });
      // API Gateway's JSON event makes each parameter an own property, even these names.
      event.queryStringParameters = JSON.parse(`{"${name}":"1"}`);
      expect(await invoke(handler, event, createLambdaContext('list-pets')), name).toEqual(
        errorResponse(400, 'invalid_parameter', `${name}: is not allowed`),
      );
    }
  });
});
