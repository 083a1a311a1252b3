/**
 * The typed client of the API for integration tests: openapi-fetch over the types that
 * openapi-typescript generates from docs/openapi.yaml (`npm run generate:client` writes
 * test/generated/petstore-api.d.ts; `npm test` runs it first). Every response it receives is
 * checked against the document (test/support/openapi-conformance.ts).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { StandardPlanId } from '../../shared/plans.ts';
import type { paths } from '../generated/petstore-api.d.ts';
import { conformanceMiddleware } from './openapi-conformance.ts';
import { seedKey } from './test-keys.ts';

/** A client of every operation of docs/openapi.yaml, typed by its paths. */
export type PetstoreClient = Client<paths>;

/**
 * A typed client of the API. Every response must conform to docs/openapi.yaml for its operation
 * and status (`expectConformingResponse`): one that does not rejects the call with the assertion
 * error.
 *
 * @param baseUrl Base URL, the stage included, e.g. `http://127.0.0.1:3000/v1`.
 * @param token Bearer token sent as `Authorization: Bearer <token>` on every request.
 * @default token - no Authorization header
 */
export function petstoreClient(baseUrl: string, token?: string): PetstoreClient {
  const client = createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  client.use(conformanceMiddleware);
  return client;
}

/**
 * Seeds an API key in the keys table of the environment (`KEYS_TABLE_NAME`, set per test file
 * by test/support/tables-per-file.ts).
 *
 * @returns The bearer token (only its hash is stored).
 */
export async function issueToken(plan: StandardPlanId = 'free'): Promise<string> {
  const { token } = await seedKey({ plan, owner: 'integration tests' });
  return token;
}
