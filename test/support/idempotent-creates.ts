/**
 * Fixtures of the createPet tests with Idempotency-Key (test/unit/idempotency.test.ts on
 * in-memory adapters, test/dynamodb/idempotency.test.ts on DynamoDB Local).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createLambdaContext } from '../../infra/local/events.ts';
import type { PetStore } from '../../shared/pets/pet-store.ts';
import { authorizedEvent, TEST_KEY, withoutRateLimitHeaders } from './authorized-event.ts';

/** Another API key than TEST_KEY, with the same limits. */
export const OTHER_KEY = { ...TEST_KEY, keyId: `key_${randomBytes(8).toString('hex')}` as const };

/** A valid NewPet body. */
export const REX = '{"name":"Rex","categoryId":1}';

/** A pet name no other test uses. */
export function uniqueName(): string {
  return `Pet ${randomUUID()}`;
}

/**
 * `createPet(body, headers, key?)`: `POST /pets` through `handler` as `key` (default TEST_KEY),
 * without its rate-limit headers; `petsNamed(name)`: how many pets of `store` are named `name`.
 */
export function idempotentCreates(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  store: PetStore,
) {
  async function createPet(
    body: string,
    headers: Record<string, string | string[]>,
    key: typeof TEST_KEY = TEST_KEY,
  ): Promise<APIGatewayProxyResult> {
    const event = authorizedEvent(
      {
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      },
      key,
    );
    return withoutRateLimitHeaders(
      await handler(event, createLambdaContext('petstore-create-pet')),
    );
  }

  async function petsNamed(name: string): Promise<number> {
    const { pets: all } = await store.listPets({ limit: 100 });
    return all.filter((pet) => pet.name === name).length;
  }

  return { createPet, petsNamed };
}
