/**
 * The authorizer of a deployed stage (`PETSTORE_STAGE=production`) accepts that stage's tokens, and
 * refuses another stage's without a read.
 */
import { describe, expect, it, vi } from 'vitest';
import { authorizerHandler } from '../../functions/handlers/authorizer.ts';
import { createAuthorizerEvent, createLambdaContext } from '../../infra/local/events.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer({ PETSTORE_STAGE: 'production' });
const handler = authorizerHandler(container);
const { keys } = container;
/** The authorizer's reads of the keys table: its lookups of a token. */
const reads = vi.spyOn(keys, 'findByToken');

function authorize(token: string) {
  const event = createAuthorizerEvent({
    method: 'GET',
    resource: '/pets',
    path: '/pets',
    headers: { Authorization: `Bearer ${token}` },
  });
  return handler(event, createLambdaContext('petstore-authorizer'));
}

describe('authorizer of the production stage', () => {
  it('allows a production token', async () => {
    const { record, token } = await keys.seedKey({ plan: 'pro', tokenStage: 'production' });

    expect(token).toMatch(/^pet_prod_/);
    expect(await authorize(token)).toMatchObject({ principalId: record.keyId });
  });

  it('refuses a local token of a stored key without reading the keys table', async () => {
    const { token } = await keys.seedKey({ plan: 'pro', tokenStage: 'local' });
    const callsBefore = reads.mock.calls.length;

    await expect(authorize(token)).rejects.toThrow('Unauthorized');

    expect(reads.mock.calls.length).toBe(callsBefore);
  });
});
