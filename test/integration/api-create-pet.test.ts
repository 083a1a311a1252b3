/**
 * createPet (POST /pets) end to end over the local gateway (test/support/local-api.ts): the 201
 * with its Location, names stored exactly as sent, 400 naming the field or the body, 415 for a
 * body that is not JSON, the 16 KiB limit, concurrent creates, and the Idempotency-Key (replay,
 * 422 for another body, 400 for a key too long).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../shared/http/json-body.ts';
import { PET_NAME_MAX_LENGTH } from '../../shared/pets/schemas.ts';
import { expectError } from '../support/error-responses.ts';
import { api, createPet, expectPet, send, serveLocalApi, token } from '../support/local-api.ts';

serveLocalApi();

/** POSTs `body` (text) to /pets as `application/json` with the key. */
function postJson(body: string): Promise<{ response: Response; body: unknown }> {
  return send('POST', '/pets', {
    body,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
}

describe('createPet (POST /pets)', () => {
  it('answers 201 with the pet, its Location and the status available by default', async () => {
    const { data, response } = await api.POST('/pets', { body: { name: 'Rex', categoryId: 7 } });

    expect(response.status).toBe(201);
    const pet = expectPet(response, data);
    expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 7, status: 'available' });
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    const fetched = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    expect(fetched.data).toEqual(pet);
  });

  it('keeps the status and the largest categoryId sent', async () => {
    const body = { name: 'Mia', categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' } as const;
    const { data, response } = await api.POST('/pets', { body });

    expect(response.status).toBe(201);
    expect(data).toMatchObject(body);
  });

  it.each([
    ['accents', 'Señor Bigotes'],
    ['quotes, a backslash and markup', `O'Brien "the cat" \\ </script>`],
    ['surrounding spaces', '  padded name  '],
    ['CJK characters', '名前はまだ無い'],
    ['emoji with a zero-width joiner', '🐈‍⬛ Mia 🐾'],
    [`${PET_NAME_MAX_LENGTH} emoji (the longest name)`, '🐈'.repeat(PET_NAME_MAX_LENGTH)],
  ])('stores a name with %s exactly as sent', async (_, name) => {
    const pet = await createPet(name);
    const { data } = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });

    expect(pet.name).toBe(name);
    expect(data?.name).toBe(name);
  });

  it('answers 400 invalid_body naming name when it has 101 code points', async () => {
    const name = `${'🐈'.repeat(PET_NAME_MAX_LENGTH)}a`;
    const { error, response } = await api.POST('/pets', { body: { name, categoryId: 1 } });

    expectError(response, error, { status: 400, code: 'invalid_body', naming: 'name' });
  });

  it.each(['', ' ', ' \t\n ', '\u00a0\u3000'])(
    'answers 400 invalid_body naming name when it is %j',
    async (name) => {
      const { error, response } = await api.POST('/pets', { body: { name, categoryId: 1 } });

      expectError(response, error, { status: 400, code: 'invalid_body', naming: 'name' });
    },
  );

  it.each([0, -1, 1.5, 2 ** 53])(
    'answers 400 invalid_body naming categoryId when it is %s',
    async (categoryId) => {
      const { error, response } = await api.POST('/pets', { body: { name: 'Rex', categoryId } });

      expectError(response, error, { status: 400, code: 'invalid_body', naming: 'categoryId' });
    },
  );

  it.each([
    ['a string', '{"name":"Rex","categoryId":"5"}'],
    ['missing', '{"name":"Rex"}'],
  ])('answers 400 invalid_body naming categoryId when it is %s', async (_, json) => {
    const { response, body } = await postJson(json);

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'categoryId' });
  });

  it('answers 400 invalid_body naming status when it is not lower case', async () => {
    const { response, body } = await postJson('{"name":"Rex","categoryId":1,"status":"Sold"}');

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'status' });
  });

  it('answers 400 invalid_body naming an unknown field', async () => {
    const { response, body } = await postJson('{"name":"Rex","categoryId":1,"colour":"brown"}');

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'colour' });
  });

  it.each([
    ['malformed JSON', '{"name":"Rex",', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
    ['null', 'null', 'invalid_body'],
    ['a string', '"Rex"', 'invalid_body'],
    ['an array', '[{"name":"Rex","categoryId":1}]', 'invalid_body'],
  ] as const)('answers 400 naming the body when it is %s', async (_, json, code) => {
    const { response, body } = await postJson(json);

    expectError(response, body, { status: 400, code, naming: 'body' });
  });

  it('answers 415 unsupported_media_type when the Content-Type is text/plain', async () => {
    const { response, body } = await send('POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
    });

    expectError(response, body, { status: 415, code: 'unsupported_media_type' });
  });

  it('answers 415 unsupported_media_type when the Content-Type is missing', async () => {
    // fetch labels a string body text/plain; bytes go without a Content-Type.
    const { response, body } = await send('POST', '/pets', {
      body: new TextEncoder().encode('{"name":"Rex","categoryId":1}'),
    });

    expectError(response, body, { status: 415, code: 'unsupported_media_type' });
  });

  it('accepts a body of exactly 16 KiB', async () => {
    const json = '{"name":"Rex","categoryId":1}';
    const { response } = await postJson(json.padEnd(MAX_BODY_BYTES, ' '));

    expect(response.status).toBe(201);
  });

  it('answers 413 payload_too_large when the body is over 16 KiB', async () => {
    const json = '{"name":"Rex","categoryId":1}';
    const { response, body } = await postJson(json.padEnd(MAX_BODY_BYTES + 1, ' '));

    expectError(response, body, { status: 413, code: 'payload_too_large', naming: 'body' });
  });

  it('gives 20 concurrent creates 20 distinct ids, each fetchable', async () => {
    const pets = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createPet(`Concurrent pet ${i}`)),
    );

    expect(new Set(pets.map((pet) => pet.id)).size).toBe(20);
    for (const pet of pets) {
      const { data } = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
      expect(data).toEqual(pet);
    }
  });
});

describe('createPet with Idempotency-Key over HTTP', () => {
  it('replays the first 201, its Location included, with Idempotent-Replayed: true', async () => {
    const headers = { 'Idempotency-Key': `"${randomUUID()}"` };
    const body = { name: 'Replayed', categoryId: 3 };
    const first = await api.POST('/pets', { body, params: { header: headers } });
    const repeat = await api.POST('/pets', { body, params: { header: headers } });

    expect(first.response.status).toBe(201);
    expect(repeat.response.status).toBe(201);
    expect(repeat.data).toEqual(first.data);
    expect(repeat.response.headers.get('location')).toBe(first.response.headers.get('location'));
    expect(repeat.response.headers.get('idempotent-replayed')).toBe('true');
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const headers = { 'Idempotency-Key': randomUUID() };
    await api.POST('/pets', {
      body: { name: 'First', categoryId: 1 },
      params: { header: headers },
    });
    const other = await send('POST', '/pets', {
      body: '{"name":"Second","categoryId":1}',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    });
    expectError(other.response, other.body, { status: 422, code: 'idempotency_key_reused' });
  });

  it('answers 400 invalid_idempotency_key for a key of 256 characters', async () => {
    const { response, body } = await send('POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'k'.repeat(256),
      },
    });
    expectError(response, body, {
      status: 400,
      code: 'invalid_idempotency_key',
      naming: 'Idempotency-Key',
    });
  });
});
