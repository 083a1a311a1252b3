/**
 * The API end to end for one test file: the local gateway (infra/local/gateway.ts) on a free port,
 * in front of the authorizer and the function handlers on this file's DynamoDB Local tables, a
 * Business key, and the typed client generated from docs/openapi.yaml (test/support/api-client.ts).
 * Inputs the typed client cannot express are sent with plain `fetch` ({@link send}). Every
 * response, of the typed client or of `fetch`, is also checked against docs/openapi.yaml
 * (test/support/openapi-conformance.ts).
 */
import * as v from 'valibot';
import { afterAll, beforeAll, expect } from 'vitest';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { type Pet, PetSchema, type PetStatus } from '../../shared/pets/schemas.ts';
import { issueToken, type PetstoreClient, petstoreClient } from './api-client.ts';
import { expectConformingResponse, readBody } from './openapi-conformance.ts';

/** The file's local gateway; set by the `beforeAll` of {@link serveLocalApi}. */
export let gateway: LocalGateway;
/** The bearer token of the file's Business key; set by the `beforeAll` of {@link serveLocalApi}. */
export let token: string;
/** A typed client of {@link gateway} with {@link token}; set by the `beforeAll` of {@link serveLocalApi}. */
export let api: PetstoreClient;

/**
 * Registers, in the calling test file, a `beforeAll` that starts the local gateway on a free port,
 * issues a Business key and makes the typed client ({@link gateway}, {@link token}, {@link api}),
 * and an `afterAll` that closes the gateway.
 */
export function serveLocalApi(): void {
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
    token = await issueToken('business');
    api = petstoreClient(gateway.url, token);
  });
  afterAll(() => gateway?.close());
}

/**
 * A request the typed client cannot express, with the key unless `headers` replace it; its answer
 * must conform to docs/openapi.yaml.
 *
 * @param path The path below the base address, query included (`/pets?limit=1`).
 * @returns The response and its body (JSON parsed, else text; see `readBody`).
 * @throws The assertion error of `expectConformingResponse` when the answer does not conform.
 */
export async function send(
  method: string,
  path: string,
  init: { body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<{ response: Response; body: unknown }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    body: init.body,
    headers: init.headers ?? { Authorization: `Bearer ${token}` },
  });
  const body = await readBody(response);
  expectConformingResponse({ method, path }, response, body);
  return { response, body };
}

/** Asserts a Pet answer: `application/json` and a body that is exactly a Pet. */
export function expectPet(response: Response, body: unknown): Pet {
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(v.is(PetSchema, body)).toBe(true);
  return body as Pet;
}

/** Creates a pet in category 1 with the typed client and asserts the 201 and its Pet body. */
export async function createPet(name: string, status?: PetStatus): Promise<Pet> {
  const { data, response } = await api.POST('/pets', { body: { name, categoryId: 1, status } });
  expect(response.status).toBe(201);
  return expectPet(response, data);
}
