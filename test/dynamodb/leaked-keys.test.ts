/**
 * What a leaked-key report does to keys that are not plainly live (docs/operations.md, "Leaked
 * keys"), and when a dependency fails: the endpoint's handler called as Lambda calls it, on the key
 * service of this file's tables, GitHub played by bench/github-keys.ts, EventBridge (which cannot
 * run here) by aws-sdk-client-mock where it must fail.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GitHubKeys, match, serveGitHubKeys } from '../../bench/github-keys.ts';
import { keyServiceOn } from '../../functions/admin/composition-root.ts';
import { secretScanningHandler } from '../../functions/handlers/secret-scanning.ts';
import { createLambdaContext, createProxyEvent } from '../../infra/local/events.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { EventBridgePublisher } from '../../shared/eventbridge/eventbridge-publisher.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { GitHubPublicKeys } from '../../shared/secret-scanning/github-public-keys.ts';
import { readSettings } from '../../shared/settings.ts';
import { service, store } from '../support/keys-table.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

let github: GitHubKeys;
let eventBridge: AwsClientStub<EventBridgeClient>;
beforeAll(async () => {
  github = await serveGitHubKeys();
});
afterAll(() => github?.close());
beforeEach(() => {
  eventBridge = mockClient(EventBridgeClient);
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
});
afterEach(() => eventBridge.restore());

/** Reports `tokens` to the endpoint's handler on `keys`, its clock at `nowMs`. */
async function report(
  tokens: readonly string[],
  options: { keys?: KeyService; nowMs?: number } = {},
): Promise<APIGatewayProxyResult> {
  const handler = secretScanningHandler({
    keys: options.keys ?? service,
    publicKeys: GitHubPublicKeys.from(github.url),
    events: new EventBridgePublisher(new EventBridgeClient({ region: 'us-east-1' })),
    now: () => options.nowMs ?? Date.now(),
  }) as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const body = JSON.stringify(tokens.map((token) => match(token)));
  const { path, method, timeoutSeconds } = SECRET_SCANNING_ROUTE;
  const event = createProxyEvent({
    method,
    resource: path,
    path,
    headers: github.signedHeaders(body),
    body: Buffer.from(body),
  });
  return handler(event, createLambdaContext('secret-scanning', undefined, timeoutSeconds));
}

const labels = (result: APIGatewayProxyResult) =>
  (JSON.parse(result.body) as { label: string }[]).map(({ label }) => label);

/** The `key.revoked` entries of `keyId`. */
async function revocations(keyId: string) {
  return (await service.history(keyId)).filter(({ event }) => event === 'key.revoked');
}

describe('a leaked-key report', () => {
  it("revokes the whole key when the token is a rolled key's old one within its grace", async () => {
    const { record, token: old } = await seedKey({ plan: 'pro' });
    const rolled = await service.rollKey(record.keyId, 3_600, TEST_CONTEXT);

    const result = await report([old]);

    expect(labels(result)).toEqual(['true_positive']);
    expect((await store.findByToken(old))?.revokedAt).toBeDefined();
    expect((await store.findByToken(rolled.token))?.revokedAt).toBeDefined();
    expect(await revocations(record.keyId)).toHaveLength(1);
  });

  it("labels a rolled key's old token past its grace true_positive and changes nothing", async () => {
    const { record, token: old } = await seedKey({ plan: 'pro' });
    await service.rollKey(record.keyId, 60, TEST_CONTEXT);

    const result = await report([old], { nowMs: Date.now() + 120_000 });

    expect(labels(result)).toEqual(['true_positive']);
    expect(await revocations(record.keyId)).toEqual([]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toEqual([]);
  });

  it('revokes an expired key too: an expiry can be lifted, a revocation cannot', async () => {
    const { record, token } = await seedKey(
      { plan: 'free' },
      { expiresAt: '2020-01-01T00:00:00Z' },
    );

    expect(labels(await report([token]))).toEqual(['true_positive']);
    expect(await revocations(record.keyId)).toHaveLength(1);
  });

  it('keeps the keys revoked and answers 200 when key.leaked cannot be published: the audit trail names them', async () => {
    eventBridge.on(PutEventsCommand).rejects(
      Object.assign(new Error('Service unavailable'), {
        name: 'InternalException',
        $metadata: { httpStatusCode: 500 },
      }),
    );
    const since = new Date(Date.now() - 1_000).toISOString();
    const { record, token } = await seedKey({ plan: 'free' });

    const result = await report([token]);

    expect(result.statusCode).toBe(200);
    expect(labels(result)).toEqual(['true_positive']);
    expect((await store.findByToken(token))?.revokedAt).toBeDefined();
    const until = new Date(Date.now() + 1_000).toISOString();
    const trail = await service.auditWindow(
      { since, until, actor: 'github-secret-scanning', event: 'key.revoked' },
      { limit: 100 },
    );
    expect(trail.entries.map(({ keyId }) => keyId)).toContain(record.keyId);
  });

  it('answers 503 with Retry-After while the home region cannot be reached, and changes nothing', async () => {
    const settings = readSettings();
    const unreachable = createDocumentClient({ endpoint: 'http://127.0.0.1:9', settings });
    const homeDown = keyServiceOn({ settings, client: unreachable });
    const { record, token } = await seedKey({ plan: 'free' });

    const result = await report([token], { keys: homeDown });

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('5');
    expect(JSON.parse(result.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect((await store.findByToken(token))?.revokedAt).toBeUndefined();
    expect(await revocations(record.keyId)).toEqual([]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toEqual([]);
    unreachable.destroy();
  });
});
