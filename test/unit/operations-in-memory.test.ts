/**
 * The seam of functions/handlers/: each operation's handler built from in-memory adapters
 * (test/support/in-memory-container.ts) answers as on DynamoDB, without DynamoDB.
 */
import { describe, expect, it } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { getPetHandler } from '../../functions/handlers/get-pet.ts';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { ROUTES } from '../../infra/routes.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { handlerFactoryOf } from '../support/handler-modules.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';
import { requestBodyExample } from '../support/openapi-document.ts';

const context = createLambdaContext('operations');

function post(body: string, headers: Record<string, string> = {}) {
  return authorizedEvent({
    method: 'POST',
    resource: '/pets',
    path: '/pets',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
}

describe('operations on in-memory adapters', () => {
  it('creates a pet once per Idempotency-Key, replays it, then gets and lists it', async () => {
    const container = inMemoryContainer();
    const createPet = createPetHandler(container);
    const request = () => post('{"name":"Rex","categoryId":7}', { 'Idempotency-Key': 'k-1' });

    const first = await invoke(createPet, request(), context);
    const repeat = await invoke(createPet, request(), context);
    const got = await invoke(
      getPetHandler(container),
      authorizedEvent({
        method: 'GET',
        resource: '/pets/{petId}',
        path: '/pets/1',
        pathParameters: { petId: '1' },
      }),
      context,
    );
    const listed = await invoke(
      listPetsHandler(container),
      authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets' }),
      context,
    );

    const pet = { id: 1, name: 'Rex', categoryId: 7, status: 'available' };
    expect(first).toEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: '/v1/pets/1' },
      body: JSON.stringify(pet),
    });
    expect(repeat.headers).toMatchObject({ 'Idempotent-Replayed': 'true' });
    expect(repeat.body).toBe(first.body);
    expect(JSON.parse(got.body)).toEqual(pet);
    expect(JSON.parse(listed.body)).toEqual([pet]);
  });

  it('answers 503 with the message the operation chose when the store is unavailable', async () => {
    const container = inMemoryContainer();
    container.pets.createPet = async () => {
      throw new StoreUnavailableError();
    };

    const response = await invoke(
      createPetHandler(container),
      post('{"name":"Rex","categoryId":7}'),
      context,
    );

    expect(response).toEqual({
      ...errorResponse(
        503,
        'service_unavailable',
        'The store did not confirm the create: the pet may or may not have been created. Send an Idempotency-Key with every POST so that a retry is safe. Retry after 5 seconds.',
      ),
      headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
    });
  });

  it('answers with the deprecation headers exactly the operations whose rows have a deprecation', async () => {
    const container = inMemoryContainer();
    await invoke(createPetHandler(container), post('{"name":"Rex","categoryId":7}'), context);

    for (const route of ROUTES) {
      const body = requestBodyExample(route.operationId);
      const event = authorizedEvent({
        method: route.method,
        resource: route.path,
        path: route.path.replace('{petId}', '1'),
        pathParameters: route.path.includes('{petId}') ? { petId: '1' } : null,
        ...(body !== undefined && {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
      });
      const handler = (await handlerFactoryOf(route))(container);
      const response = await invoke(handler, event, context);

      expect(response.statusCode, route.operationId).toBeLessThan(300);
      expect(response.headers?.Deprecation !== undefined, route.operationId).toBe(
        route.deprecation !== undefined,
      );
    }
  });
});
