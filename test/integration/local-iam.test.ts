/**
 * The local gateway runs each function with its IAM grants: here getPet's role lacks its GetItem
 * on the pets table (the route table mocked), and getPet answers 500 as it would on AWS, while
 * listPets, whose grants are whole, answers 200.
 */
import { describe, expect, it, vi } from 'vitest';
import type * as Routes from '../../infra/routes.ts';
import { expectError } from '../support/error-responses.ts';
import { createPet, send, serveLocalApi } from '../support/local-api.ts';

vi.mock('../../infra/routes.ts', async (importOriginal) => {
  const routes = await importOriginal<typeof Routes>();
  return {
    ...routes,
    ROUTES: routes.ROUTES.map((route) =>
      route.operationId === 'getPet'
        ? {
            ...route,
            tableAccess: route.tableAccess.filter(
              ({ actions }) => !actions.includes('dynamodb:GetItem'),
            ),
          }
        : route,
    ),
  };
});

serveLocalApi();

describe('local gateway with a grant missing', () => {
  it('answers 500 internal_error for the function whose role lacks the call, as AWS would', async () => {
    const pet = await createPet('Unreadable', 'sold');

    const { response, body } = await send('GET', `/pets/${pet.id}`);

    expectError(response, body, { status: 500, code: 'internal_error' });
  });

  it('serves the functions whose grants are whole', async () => {
    const { response } = await send('GET', '/pets?limit=1');

    expect(response.status).toBe(200);
  });
});
