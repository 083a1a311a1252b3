/**
 * The authorizer of a deployed stage (`PETSTORE_STAGE=production`) accepts that stage's tokens and
 * legacy `psk_` ones, and refuses another stage's without a read.
 */
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.PETSTORE_STAGE = 'production';
});

const { withGrants } = await import('../../infra/local/iam.ts');
const { AUTHORIZER } = await import('../../infra/routes.ts');
const { handler } = await withGrants(AUTHORIZER, () => import('../../functions/authorizer.ts'));
const { createAuthorizerEvent, createLambdaContext } = await import('../../infra/local/events.ts');
const { createContainer } = await import('../../shared/container.ts');
const { meterEveryDocumentClient } = await import('../../bench/meter.ts');

const keys = createContainer().keys;
const meter = meterEveryDocumentClient();

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
    const { record, token } = await keys.createKey({ plan: 'pro', tokenStage: 'production' });

    expect(token).toMatch(/^pet_prod_/);
    expect(await authorize(token)).toMatchObject({ principalId: record.keyId });
  });

  it('refuses a local token of a stored key without reading the keys table', async () => {
    const { token } = await keys.createKey({ plan: 'pro', tokenStage: 'local' });
    const callsBefore = meter.calls;

    await expect(authorize(token)).rejects.toThrow('Unauthorized');

    expect(meter.calls).toBe(callsBefore);
  });
});
