/**
 * createPet with Idempotency-Key (draft-ietf-httpapi-idempotency-key-header-07, Stripe's replay
 * rules), through the real handler on in-memory adapters; what rests on DynamoDB itself (the one
 * transaction under concurrent duplicates, expiry, TTL, a lost answer, the table gone) is in
 * test/dynamodb/idempotency.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { idempotencyKeyOf, requestFingerprint } from '../../shared/http/idempotency-key.ts';
import { IN_FLIGHT } from '../../shared/idempotency/record.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { idempotentCreates, OTHER_KEY, REX, uniqueName } from '../support/idempotent-creates.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer();
const { createPet, petsNamed } = idempotentCreates(createPetHandler(container), container.pets);

describe('idempotencyKeyOf', () => {
  const event = (value: string | string[]) =>
    authorizedEvent({
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      headers: { 'idempotency-key': value },
    });

  it('reads a Structured Field string and the same characters unquoted as one key', () => {
    expect(idempotencyKeyOf(event('"8e03978e-40d5-43e8-bc93-6894a57f9324"'))).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf(event('8e03978e-40d5-43e8-bc93-6894a57f9324'))).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf(event('"a\\"b\\\\c"'))).toBe('a"b\\c');
    expect(idempotencyKeyOf(event('x'.repeat(255)))).toBe('x'.repeat(255));
  });

  it('is undefined without the header', () => {
    expect(
      idempotencyKeyOf(authorizedEvent({ method: 'POST', resource: '/pets', path: '/pets' })),
    ).toBeUndefined();
  });

  it('refuses anything but 1 to 255 visible ASCII characters, and a repeated header', () => {
    for (const value of ['', '""', 'x'.repeat(256), 'two words', '"two words"', 'clé', '"open']) {
      expect(() => idempotencyKeyOf(event(value)), value).toThrow(
        'Idempotency-Key: must be 1 to 255 visible ASCII characters, optionally as a quoted string',
      );
    }
    expect(() => idempotencyKeyOf(event(['a', 'b']))).toThrow(
      'Idempotency-Key: is given 2 times; send it once',
    );
  });
});

describe('requestFingerprint', () => {
  it('ignores key order and white space, and nothing else', () => {
    const a = requestFingerprint(JSON.parse('{"name":"Rex","categoryId":1}'));
    expect(requestFingerprint(JSON.parse('{ "categoryId" : 1, "name" : "Rex" }'))).toBe(a);
    expect(requestFingerprint(JSON.parse('{"name":"Rex","categoryId":2}'))).not.toBe(a);
    expect(requestFingerprint(JSON.parse('{"name":"Rex"}'))).not.toBe(a);
  });
});

describe('createPet with Idempotency-Key', () => {
  it('creates once and replays the first answer, with Idempotent-Replayed, to the same request', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const first = await createPet(JSON.stringify({ name, categoryId: 3 }), {
      'Idempotency-Key': key,
    });
    const repeat = await createPet(JSON.stringify({ categoryId: 3, name }, null, 2), {
      'Idempotency-Key': `"${key}"`,
    });

    expect(first.statusCode).toBe(201);
    expect(first.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(repeat).toEqual({
      ...first,
      headers: { ...first.headers, 'Idempotent-Replayed': 'true' },
    });
    expect(await petsNamed(name)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, creating nothing', async () => {
    const key = randomUUID();
    const name = uniqueName();
    await createPet(JSON.stringify({ name, categoryId: 1 }), { 'Idempotency-Key': key });

    const other = await createPet(JSON.stringify({ name, categoryId: 2 }), {
      'Idempotency-Key': key,
    });

    expect(other).toEqual(
      errorResponse(
        422,
        'idempotency_key_reused',
        'Idempotency-Key: was used with a different request body; send a new key for a new request.',
      ),
    );
    expect(await petsNamed(name)).toBe(1);
  });

  it('scopes keys to the API key: the same value from another key is another request', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });

    const ours = await createPet(body, { 'Idempotency-Key': key });
    const theirs = await createPet(body, { 'Idempotency-Key': key }, OTHER_KEY);

    expect([ours.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.body).not.toBe(ours.body);
    expect(await petsNamed(name)).toBe(2);
  });

  it('makes one pet of 10 concurrent identical requests; the others replay it or answer 409', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => createPet(body, { 'Idempotency-Key': key })),
    );

    expect(await petsNamed(name)).toBe(1);
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body)).size).toBe(1);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      expect(answer.statusCode).toBe(409);
      expect(JSON.parse(answer.body).code).toBe('idempotency_request_in_progress');
      expect(Number(answer.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    }
    const retry = await createPet(body, { 'Idempotency-Key': key });
    expect(retry.body).toBe(created[0]?.body);
  });

  it('answers 409 idempotency_request_in_progress with Retry-After: 1 when the store meets another write of the key', async () => {
    const inFlight = inMemoryContainer();
    vi.spyOn(inFlight.pets, 'createPetOnce').mockResolvedValue(IN_FLIGHT);
    const creates = idempotentCreates(createPetHandler(inFlight), inFlight.pets);

    const answer = await creates.createPet(REX, { 'Idempotency-Key': randomUUID() });

    expect(answer).toEqual({
      ...errorResponse(
        409,
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed; retry after 1 second.',
      ),
      headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
    });
  });

  it('stores no validation error: the same key then runs a valid body', async () => {
    const key = randomUUID();
    const invalid = await createPet('{"name":"Rex"}', { 'Idempotency-Key': key });
    const valid = await createPet(REX, { 'Idempotency-Key': key });

    expect(invalid.statusCode).toBe(400);
    expect(valid.statusCode).toBe(201);
    expect(valid.headers).not.toHaveProperty('Idempotent-Replayed');
  });

  it('answers 400 invalid_idempotency_key for a malformed key, creating nothing', async () => {
    const name = uniqueName();
    const answer = await createPet(JSON.stringify({ name, categoryId: 1 }), {
      'Idempotency-Key': 'not visible ascii: é',
    });

    expect(answer).toEqual(
      errorResponse(
        400,
        'invalid_idempotency_key',
        'Idempotency-Key: must be 1 to 255 visible ASCII characters, optionally as a quoted string',
      ),
    );
    expect(await petsNamed(name)).toBe(0);
  });
});
