/**
 * The typed client of the API for integration tests: openapi-fetch over the types that
 * openapi-typescript generates from docs/openapi.yaml (`npm run generate:client` writes
 * test/generated/petstore-api.d.ts; `npm test` runs it first).
 */
import createClient, { type Client } from 'openapi-fetch';
import { keyStoreFromEnv } from '../../shared/keys/store.ts';
import type { PlanId } from '../../shared/plans.ts';
import type { paths } from '../generated/petstore-api.d.ts';

/** A client of every operation of docs/openapi.yaml, typed by its paths. */
export type PetstoreClient = Client<paths>;

/**
 * A typed client of the API.
 *
 * @param baseUrl Base URL, the stage included, e.g. `http://127.0.0.1:3000/v1`.
 * @param token Bearer token sent as `Authorization: Bearer <token>` on every request.
 * @default token - no Authorization header
 */
export function petstoreClient(baseUrl: string, token?: string): PetstoreClient {
  return createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

/**
 * Issues an API key in the keys table of the environment (`KEYS_TABLE_NAME`, set per test file
 * by test/support/tables-per-file.ts).
 *
 * @returns The bearer token (only its hash is stored).
 */
export async function issueToken(plan: PlanId = 'free'): Promise<string> {
  const { token } = await keyStoreFromEnv().createKey({ plan, owner: 'integration tests' });
  return token;
}
