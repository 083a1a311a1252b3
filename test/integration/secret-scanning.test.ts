/**
 * The leaked-key endpoint over HTTP (docs/operations.md, "Leaked keys"): the local gateway on this
 * file's tables, serving `POST /v1/secret-scanning/github` with the endpoint's handler on the key
 * service of its entry's environment (its IAM grants, the process's event bus), whose DynamoDB
 * calls a client middleware counts as the benches count theirs; GitHub played by a key list of the
 * test's own (test/support/github-keys.ts). One gateway for the file.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GitHubKeys,
  type Match,
  match,
  serveGitHubKeys,
  sha256,
} from '../../bench/github-keys.ts';
import { homeKeyService } from '../../functions/admin/composition-root.ts';
import { secretScanningHandler } from '../../functions/handlers/secret-scanning.ts';
import { localEventBus, type RecordedEvent } from '../../infra/local/event-bus.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { grantedEnvironment } from '../../infra/local/iam.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { createDynamoDBBase } from '../../shared/dynamodb/base.ts';
import { EventBridgePublisher } from '../../shared/eventbridge/eventbridge-publisher.ts';
import { generateToken } from '../../shared/keys/token.ts';
import { GitHubPublicKeys } from '../../shared/secret-scanning/github-public-keys.ts';
import { readSettings } from '../../shared/settings.ts';
import { service as keys } from '../support/keys-table.ts';
import { seedKey } from '../support/test-keys.ts';

let github: GitHubKeys;
let gateway: LocalGateway;
/** The token hashes each BatchGetItem call of the endpoint asked for, one array per call. */
const batchGets: string[][] = [];
/** DynamoDB calls of the endpoint, by command name. */
const calls: string[] = [];

beforeAll(async () => {
  github = await serveGitHubKeys();
  const env = { ...process.env, SECRET_SCANNING_KEYS_URL: github.url };
  const base = createDynamoDBBase(
    readSettings(await grantedEnvironment(SECRET_SCANNING_ROUTE, env)),
  );
  base.client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '');
      if (context.commandName === 'BatchGetItemCommand') {
        const { RequestItems } = args.input as {
          RequestItems: Record<string, { Keys: { keyHash: string }[] }>;
        };
        const asked = Object.values(RequestItems).flatMap(({ Keys }) => Keys);
        batchGets.push(asked.map(({ keyHash }) => keyHash));
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  const handler = secretScanningHandler({
    keys: homeKeyService(base),
    publicKeys: GitHubPublicKeys.from(github.url),
    events: EventBridgePublisher.from(base.settings),
  }) as (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;
  gateway = await startGateway({
    port: 0,
    handlers: { [SECRET_SCANNING_ROUTE.operationId]: handler as never },
  });
});
afterAll(async () => {
  await gateway?.close();
  await github?.close();
});

/** POSTs `body` (as is) to the endpoint with `headers`; the answer and its JSON body. */
async function post(body: string, headers: Record<string, string>, signal?: AbortSignal) {
  const response = await fetch(`${gateway.url}/secret-scanning/github`, {
    method: 'POST',
    body,
    headers,
    signal,
  });
  return { response, body: (await response.json()) as unknown };
}

/** POSTs `matches` as GitHub does: the JSON text signed. */
function report(matches: readonly Match[], signal?: AbortSignal) {
  const body = JSON.stringify(matches);
  return post(body, github.signedHeaders(body), signal);
}

/** The events of the bus with detail-type `key.leaked` naming `keyId`. */
async function leakedEvents(keyId: string): Promise<RecordedEvent[]> {
  return (await localEventBus())
    .events()
    .filter(
      (event) =>
        event.detailType === 'key.leaked' && (event.detail as { keyId: string }).keyId === keyId,
    );
}

describe('POST /v1/secret-scanning/github', () => {
  it('revokes a reported key of this stage on record: actor github-secret-scanning, the URL and source in the reason, key.leaked on the bus, the token nowhere', async () => {
    const { record, token } = await seedKey({ plan: 'pro', owner: 'ada@example.com' });

    const { response, body } = await report([match(token, 'leak.env')]);

    expect(response.status).toBe(200);
    expect(body).toEqual([
      { token_hash: sha256(token), token_type: 'petstore_api_token', label: 'true_positive' },
    ]);
    const history = await keys.history(record.keyId);
    const revoked = history.filter((entry) => entry.event === 'key.revoked');
    expect(revoked).toHaveLength(1);
    expect(revoked[0]?.actor).toEqual({ type: 'system', id: 'github-secret-scanning' });
    expect(revoked[0]?.reason).toContain('https://github.com/octo-org/app/blob/9f1a2b3/leak.env');
    expect(revoked[0]?.reason).toContain('source: content');
    const events = await leakedEvents(record.keyId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      source: 'petstore.keys',
      detail: {
        keyId: record.keyId,
        owner: 'ada@example.com',
        url: 'https://github.com/octo-org/app/blob/9f1a2b3/leak.env',
        source: 'content',
      },
    });
    expect(JSON.stringify([body, history, events])).not.toContain(token);
  });

  it("answers GitHub's feedback: one element per reported token, in order, each {token_hash, token_type, label}", async () => {
    const known = await seedKey({ plan: 'free' });
    const matches = [match(known.token), match('not-a-token'), match(generateToken('local'))];

    const { body } = await report([...matches, { ...matches[0], type: 'other_type' } as Match]);

    expect(body).toEqual([
      { token_hash: sha256(known.token), token_type: 'petstore_api_token', label: 'true_positive' },
      {
        token_hash: sha256('not-a-token'),
        token_type: 'petstore_api_token',
        label: 'false_positive',
      },
      {
        token_hash: sha256(matches[2]?.token ?? ''),
        token_type: 'petstore_api_token',
        label: 'false_positive',
      },
      { token_hash: sha256(known.token), token_type: 'other_type', label: 'true_positive' },
    ]);
  });

  it('changes nothing when the same token is reported again: no second entry, no second event', async () => {
    const { record, token } = await seedKey({ plan: 'business' });
    await report([match(token)]);
    const before = await keys.getKey(record.keyId);

    const again = await report([match(token, 'elsewhere.txt')]);

    expect(again.body).toEqual([expect.objectContaining({ label: 'true_positive' })]);
    expect(await keys.getKey(record.keyId)).toEqual(before);
    const entries = (await keys.history(record.keyId)).filter(
      ({ event }) => event === 'key.revoked',
    );
    expect(entries).toHaveLength(1);
    expect(await leakedEvents(record.keyId)).toHaveLength(1);
  });

  it('never looks up a token of another stage or with a wrong checksum, and changes nothing', async () => {
    const ours = generateToken('local');
    const production = await seedKey({ plan: 'free', tokenStage: 'production' });
    const broken = `${ours.slice(0, -1)}${ours.endsWith('0') ? '1' : '0'}`;
    batchGets.length = 0;

    const { body } = await report([match(production.token), match(broken), match(ours)]);

    expect((body as { label: string }[]).map(({ label }) => label)).toEqual([
      'false_positive',
      'false_positive',
      'false_positive',
    ]);
    expect(batchGets).toEqual([[sha256(ours)]]);
    expect((await keys.getKey(production.record.keyId)).key.revokedAt).toBeUndefined();
  });

  it('answers 401 before it reads a token: no signature, an unknown key, a wrong signature', async () => {
    const { record, token } = await seedKey({ plan: 'free' });
    const body = JSON.stringify([match(token)]);
    const signed = github.signedHeaders(body);
    const other = github.signedHeaders(`${body} `)['GITHUB-PUBLIC-KEY-SIGNATURE'] as string;
    calls.length = 0;

    const answers = await Promise.all([
      post(body, { 'Content-Type': 'application/json' }),
      post(body, { ...signed, 'GITHUB-PUBLIC-KEY-IDENTIFIER': 'f'.repeat(64) }),
      post(body, { ...signed, 'GITHUB-PUBLIC-KEY-IDENTIFIER': 'old' }),
      post(body, { ...signed, 'GITHUB-PUBLIC-KEY-SIGNATURE': other }),
      post(body, { ...signed, 'GITHUB-PUBLIC-KEY-SIGNATURE': 'not base64 DER' }),
    ]);

    for (const { response, body: error } of answers) {
      expect(response.status).toBe(401);
      expect(error).toEqual({ code: 'unauthorized', message: expect.any(String), status: 401 });
    }
    expect(calls).toEqual([]);
    expect((await keys.getKey(record.keyId)).key.revokedAt).toBeUndefined();
  });

  it('verifies the signature over the body as sent: the same JSON written again is refused', async () => {
    const { token } = await seedKey({ plan: 'free' });
    const sent = `[ {"source": "commit",  "url": "", "type": "t", "token": "${token}"} ]\n`;
    const rewritten = JSON.stringify(JSON.parse(sent));

    const asSent = await post(sent, github.signedHeaders(sent));
    const signedRewritten = await post(sent, github.signedHeaders(rewritten));

    expect(asSent.response.status).toBe(200);
    expect(asSent.body).toEqual([expect.objectContaining({ label: 'true_positive' })]);
    expect(signedRewritten.response.status).toBe(401);
  });

  it('answers 400 to a signed body that is not an array of matches, 413 to one over 1 MiB', async () => {
    const bodies = ['{"token":"x"}', '[{"type":"t"}]', '[1]', 'not json'];
    const large = JSON.stringify([{ ...match('x'), url: 'u'.repeat(1024 * 1024) }]);

    const answers = await Promise.all(bodies.map((body) => post(body, github.signedHeaders(body))));
    const tooLarge = await post(large, github.signedHeaders(large));

    expect(answers.map(({ response }) => response.status)).toEqual([400, 400, 400, 400]);
    expect(tooLarge.response.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('answers a report of 1,000 tokens within 10 s, one element each, in at most 10 BatchGetItem calls', async () => {
    // A few live keys: the look-up is what the bound is about; revocations' cost: the bench.
    const live = await Promise.all(Array.from({ length: 20 }, () => seedKey({ plan: 'free' })));
    const others = Array.from({ length: 980 }, () => generateToken('local'));
    const tokens = [...live.map(({ token }) => token), ...others];
    batchGets.length = 0;

    // The client gives up after 10 s: a slower answer fails the test.
    const { response, body } = await report(
      tokens.map((token) => match(token)),
      AbortSignal.timeout(10_000),
    );

    expect(response.status).toBe(200);
    expect(body).toHaveLength(1_000);
    expect(
      (body as { label: string }[]).filter(({ label }) => label === 'true_positive'),
    ).toHaveLength(20);
    expect(batchGets.length).toBeLessThanOrEqual(10);
    expect(batchGets.flat().sort()).toEqual(tokens.map(sha256).sort());
  });
});
