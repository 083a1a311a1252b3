import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer();
const handler = createPetHandler(container);
const store = container.pets;

/** A `POST /pets` event; `contentType: null` sends no Content-Type header. */
function createPetEvent(
  body: string | null,
  contentType: string | null = 'application/json',
): APIGatewayProxyEvent {
  return authorizedEvent({
    method: 'POST',
    resource: '/pets',
    path: '/pets',
    headers: contentType === null ? {} : { 'Content-Type': contentType },
    body,
  });
}

function createPet(body: string | null, contentType?: string | null) {
  return invoke(handler, createPetEvent(body, contentType), createLambdaContext('create-pet'));
}

/** Number of pets stored (the tables of this file hold far fewer than 100). */
async function countPets(): Promise<number> {
  return (await store.listPets({ limit: 100 })).pets.length;
}

/** Creates a valid pet and returns its id, the newest issued. */
async function newestId(): Promise<number> {
  const response = await createPet('{"name":"Probe","categoryId":1}');
  expect(response.statusCode).toBe(201);
  return (JSON.parse(response.body) as Pet).id;
}

describe('createPet', () => {
  it('answers 201 with the Pet and its Location, and stores exactly that pet', async () => {
    const response = await createPet('{"name":"Rex","categoryId":7,"status":"pending"}');

    const { id } = JSON.parse(response.body) as Pet;
    expect(Number.isSafeInteger(id) && id > 0).toBe(true);
    expect(response).toEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${id}` },
      body: JSON.stringify({ id, name: 'Rex', categoryId: 7, status: 'pending' }),
    });
    expect(await store.getPet(id)).toEqual({ id, name: 'Rex', categoryId: 7, status: 'pending' });
  });

  it('gives a pet created without status the status available', async () => {
    const response = await createPet('{"name":"Tom","categoryId":2}');

    const pet = JSON.parse(response.body) as Pet;
    expect(pet).toEqual({ id: pet.id, name: 'Tom', categoryId: 2, status: 'available' });
    expect((await store.getPet(pet.id))?.status).toBe('available');
  });

  it('keeps names exactly as sent: Unicode, quotes, emoji, spaces, control characters', async () => {
    const names = [
      'Zoë',
      'ポチ',
      'e\u0301 (combining accent)',
      '"Quoted" \\ backslash',
      "O'Brien",
      '🐶🐱',
      '👩‍👩‍👧 family',
      '  padded  ',
      'line\nbreak\ttab',
      '<script>alert(1)</script>',
      'x'.repeat(100),
    ];
    for (const name of names) {
      const response = await createPet(JSON.stringify({ name, categoryId: 1 }));
      expect(response.statusCode, name).toBe(201);
      const pet = JSON.parse(response.body) as Pet;
      expect(pet.name).toBe(name);
      expect((await store.getPet(pet.id))?.name).toBe(name);
    }
  });

  it('accepts a name of 100 emoji and rejects one of 101', async () => {
    const accepted = await createPet(JSON.stringify({ name: '🐶'.repeat(100), categoryId: 1 }));
    expect(accepted.statusCode).toBe(201);

    const rejected = await createPet(JSON.stringify({ name: '🐶'.repeat(101), categoryId: 1 }));
    expect(rejected).toEqual(
      errorResponse(400, 'invalid_body', 'name: must be at most 100 characters'),
    );
  });

  it('answers 400 invalid_body naming the field for a bad name', async () => {
    const cases: [string, string][] = [
      ['{"name":"   ","categoryId":1}', 'name: must contain at least one non-space character'],
      ['{"name":"","categoryId":1}', 'name: must contain at least one non-space character'],
      ['{"name":42,"categoryId":1}', 'name: must be a string'],
      ['{"name":null,"categoryId":1}', 'name: must be a string'],
      ['{"categoryId":1}', 'name: is required'],
    ];
    for (const [body, message] of cases) {
      expect(await createPet(body), body).toEqual(errorResponse(400, 'invalid_body', message));
    }
  });

  it('accepts categoryId 1 and 2^53 - 1', async () => {
    for (const categoryId of [1, Number.MAX_SAFE_INTEGER]) {
      const response = await createPet(JSON.stringify({ name: 'Rex', categoryId }));
      expect(response.statusCode).toBe(201);
      const { id } = JSON.parse(response.body) as Pet;
      expect((await store.getPet(id))?.categoryId).toBe(categoryId);
    }
  });

  it('answers 400 invalid_body for a categoryId out of range, fractional, text or missing', async () => {
    const cases: [string, string][] = [
      ['0', 'categoryId: must be at least 1'],
      ['-1', 'categoryId: must be at least 1'],
      ['1.5', 'categoryId: must be an integer'],
      ['9007199254740992', 'categoryId: must be at most 9007199254740991'],
      // Parses to 2^53 as well: a value a JSON number cannot carry exactly is never stored.
      ['9007199254740993', 'categoryId: must be at most 9007199254740991'],
      ['"5"', 'categoryId: must be an integer'],
    ];
    for (const [categoryId, message] of cases) {
      const body = `{"name":"Rex","categoryId":${categoryId}}`;
      expect(await createPet(body), body).toEqual(errorResponse(400, 'invalid_body', message));
    }
    expect(await createPet('{"name":"Rex"}')).toEqual(
      errorResponse(400, 'invalid_body', 'categoryId: is required'),
    );
  });

  it('answers 400 invalid_body for a status outside the enumeration', async () => {
    expect(await createPet('{"name":"Rex","categoryId":1,"status":"Sold"}')).toEqual(
      errorResponse(400, 'invalid_body', 'status: must be one of available, pending, sold'),
    );
  });

  it('answers 400 invalid_body for an unknown field instead of dropping it', async () => {
    expect(await createPet('{"name":"Rex","categoryId":1,"categoryID":2}')).toEqual(
      errorResponse(400, 'invalid_body', 'categoryID: is not allowed'),
    );
    expect(await createPet('{"name":"Rex","categoryId":1,"__proto__":{"status":"sold"}}')).toEqual(
      errorResponse(400, 'invalid_body', '__proto__: is not allowed'),
    );
    expect(await createPet('{"name":"Rex","categoryId":1,"constructor":{"prototype":{}}}')).toEqual(
      errorResponse(400, 'invalid_body', 'constructor: is not allowed'),
    );
  });

  it('answers 400 invalid_json for malformed JSON or an empty body', async () => {
    for (const body of ['{"name":"Rex",', '{name:"Rex"}', 'undefined', '   ']) {
      expect(await createPet(body), body).toEqual(
        errorResponse(400, 'invalid_json', 'body: is empty or not valid JSON'),
      );
    }
    for (const body of ['', null]) {
      expect(await createPet(body)).toEqual(
        errorResponse(400, 'invalid_json', 'body: is required and must be a JSON object'),
      );
    }
  });

  it('answers 400 invalid_body for JSON that is not an object', async () => {
    for (const body of ['null', '"Rex"', '42', 'true', '[]', '[{"name":"Rex","categoryId":1}]']) {
      expect(await createPet(body), body).toEqual(
        errorResponse(400, 'invalid_body', 'body: must be a JSON object'),
      );
    }
  });

  it('answers 415 for a Content-Type other than JSON, or none', async () => {
    const body = '{"name":"Rex","categoryId":1}';
    expect(await createPet(body, 'text/plain')).toEqual(
      errorResponse(
        415,
        'unsupported_media_type',
        'Content-Type must be application/json, not "text/plain".',
      ),
    );
    expect(await createPet(body, null)).toEqual(
      errorResponse(
        415,
        'unsupported_media_type',
        'Content-Type must be application/json, not missing.',
      ),
    );
  });

  it('accepts application/json with a UTF-8 charset, in any case', async () => {
    const body = '{"name":"Rex","categoryId":1}';
    for (const contentType of ['application/json; charset=utf-8', 'APPLICATION/JSON']) {
      expect((await createPet(body, contentType)).statusCode, contentType).toBe(201);
    }
  });

  it('answers 400 naming the surrogate for a name that is one lone surrogate', async () => {
    expect(await createPet('{"name":"\\ud800","categoryId":1}')).toEqual(
      errorResponse(
        400,
        'invalid_body',
        'name: must not contain a lone UTF-16 surrogate (such as \\ud800): it is half of a character and cannot be stored',
      ),
    );
  });

  it('creates a pet from a body of exactly 16 KiB and answers 413 one byte over', async () => {
    const json = '{"name":"Big","categoryId":1}';
    const exact = json.padEnd(16 * 1024, ' ');

    const created = await createPet(exact);
    expect(created.statusCode).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ name: 'Big', categoryId: 1 });

    expect(await createPet(`${exact} `)).toEqual(
      errorResponse(413, 'payload_too_large', 'body: is 16385 bytes; the limit is 16384 bytes.'),
    );
  });

  it('creates a pet from a base64-encoded body', async () => {
    const body = Buffer.from('{"name":"Zoë 🐶","categoryId":3}', 'utf8').toString('base64');
    const event = { ...createPetEvent(body), isBase64Encoded: true };

    const response = await invoke(handler, event, createLambdaContext('create-pet'));

    expect(response.statusCode).toBe(201);
    const pet = JSON.parse(response.body) as Pet;
    expect(pet).toEqual({ id: pet.id, name: 'Zoë 🐶', categoryId: 3, status: 'available' });
  });

  it('issues unique, increasing ids to 20 concurrent creates', async () => {
    const before = await newestId();

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createPet(JSON.stringify({ name: `Pup ${i}`, categoryId: 1 })),
      ),
    );

    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const ids = responses.map((r) => (JSON.parse(r.body) as Pet).id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => before + 1 + i));
    for (const [i, response] of responses.entries()) {
      const pet = JSON.parse(response.body) as Pet;
      expect(await store.getPet(pet.id)).toEqual({
        id: pet.id,
        name: `Pup ${i}`,
        categoryId: 1,
        status: 'available',
      });
    }
    expect(await newestId()).toBe(before + 21);
  });

  it('writes nothing and consumes no id when the request is refused', async () => {
    const lastId = await newestId();
    const pets = await countPets();

    const refused = [
      await createPet('{"name":"Rex","categoryId":0}'),
      await createPet('{"name":"Rex","categoryId":1,"colour":"red"}'),
      await createPet('{"name":'),
      await createPet('{"name":"Rex","categoryId":1}', 'text/plain'),
      await createPet('{"name":"Rex","categoryId":1}', 'application/merge-patch+json'),
      await createPet('{"name":"Rex","categoryId":1}', 'application/json; charset=latin1'),
      await createPet(`{"name":"Rex","categoryId":1}${' '.repeat(16 * 1024)}`),
    ];

    expect(refused.map((r) => r.statusCode)).toEqual([400, 400, 400, 415, 415, 415, 413]);
    expect(await countPets()).toBe(pets);
    expect(await newestId()).toBe(lastId + 1);
  });
});
