/**
 * The two-region local stack (infra/local/multi-region-stack.ts) for the rehearsal tests of issue
 * 40: both regions in memory on free ports, keys issued in the home region and awaited in the
 * other, and the API called in either region over HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { keyServiceOn } from '../../functions/admin/composition-root.ts';
import { type RunningRegions, startRegions } from '../../infra/local/multi-region-stack.ts';
import type { ReplicationFigures } from '../../infra/local/replication.ts';
import { generateCredentials } from '../../infra/local/stack-files.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyLookup } from '../../shared/dynamodb/dynamodb-key-lookup.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { NewKeyInput } from '../../shared/keys/key-records.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { readSettings } from '../../shared/settings.ts';
import { stackPort } from './local-stack.ts';
import { TEST_CONTEXT } from './test-keys.ts';

/** The regions of every rehearsal, the home region first. */
export const REGION_NAMES = ['us-east-1', 'eu-west-1'];

/** A running two-region stack, its home region's key service, and calls of its API. */
export interface TwoRegions {
  readonly stack: RunningRegions;
  /** The key service of the home region (keys have one writer region); changes by `TEST_CONTEXT`. */
  readonly keys: KeyService;
  /** The keys table of region 1, read directly (not through its authorizer's cache). */
  readonly keysElsewhere: DynamoDBKeyLookup;
  /** Base URL of region `at` (0: home), e.g. `http://127.0.0.1:3400/v1`. */
  url(at: number): string;
  /** Issues a key in the home region and waits until it is in region 1's table. @returns Its token. */
  issueKey(input: NewKeyInput): Promise<string>;
  /** The model's figures (`/__local/replication` of region `at`). */
  replication(at?: number): Promise<ReplicationFigures>;
  stop(): Promise<void>;
}

/** Milliseconds a poll of {@link eventually} waits between tries. */
const POLL_MS = 50;

/**
 * Polls `probe` until it returns a value other than `undefined`, at most `timeoutMs`.
 * @returns The value and the milliseconds it took.
 * @throws Error when the time runs out.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    const ms = performance.now() - started;
    if (value !== undefined) return { value, ms };
    if (ms > timeoutMs) throw new Error(`Not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `fetch` of a path below the stage in region `url`, with `token`. */
export async function call(
  url: string,
  token: string,
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${token}`,
      ...(init.body !== undefined && { 'Content-Type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

/** Every pet of region `url` by following `Link` (limit 100): the ids in the order listed. */
export async function pageAll(url: string, token: string): Promise<number[]> {
  const ids: number[] = [];
  for (let path: string | undefined = '/pets?limit=100'; path !== undefined; ) {
    const { status, body, headers } = await call(url, token, path);
    if (status !== 200) throw new Error(`listPets answered ${status}`);
    ids.push(...(body as Pet[]).map((pet) => pet.id));
    const next = headers.get('Link')?.match(/<[^>]*\/v1(\/pets[^>]*)>; rel="next"/)?.[1];
    path = next;
  }
  return ids;
}

/**
 * Starts both regions in memory on free ports (`lagMs` the model's lag) with `env` for their
 * functions (e.g. a low ban threshold).
 */
export async function startTwoRegions(
  env: Record<string, string> = {},
  lagMs = 500,
): Promise<TwoRegions> {
  const directory = await mkdtemp(join(tmpdir(), 'petstore-regions-'));
  const credentials = generateCredentials();
  const port = await stackPort(1);
  const dynamoPort = await stackPort(1);
  const stack = await startRegions({
    names: REGION_NAMES,
    port,
    dynamoPort,
    directory,
    inMemory: true,
    credentials,
    lagMs,
    env,
  });
  const running = stack;
  const client = createDocumentClient({
    endpoint: running.homeEnv.DYNAMODB_ENDPOINT,
    local: credentials,
  });
  const keysTable = running.homeEnv[KEYS_TABLE.envVar] ?? '';
  const keys = keyServiceOn({
    client,
    settings: readSettings({ ...process.env, ...running.homeEnv }),
  });
  const otherClient = createDocumentClient({
    endpoint: running.regions[1]?.endpoint,
    local: credentials,
  });
  const lookup = new DynamoDBKeyLookup(otherClient, keysTable);
  const url = (at: number) => running.regions[at]?.url ?? '';
  return {
    stack: running,
    keys,
    keysElsewhere: lookup,
    url,
    async issueKey(input) {
      const { token } = await keys.createKey(input, TEST_CONTEXT);
      // Read the other region's table, not its API: its authorizer would cache a 401 for 60 s.
      await eventually(async () => (await lookup.findByToken(token)) ?? undefined);
      return token;
    },
    async replication(at = 0) {
      const response = await fetch(new URL('/__local/replication', url(at)));
      return (await response.json()) as ReplicationFigures;
    },
    async stop() {
      client.destroy();
      otherClient.destroy();
      await running.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The two-region stack of the calling test file: started before its tests (the ban threshold 3,
 * so that a ban takes few requests; the limiter never failing open, since a loaded machine can
 * keep DynamoDB Local past its 5 s deadline in a burst, and a request let through uncounted
 * breaks the bounds these files check), stopped after them. @returns It, once started.
 */
export function twoRegionsOfThisFile(): () => TwoRegions {
  let regions: TwoRegions | undefined;
  beforeAll(async () => {
    regions = await startTwoRegions({
      RATE_LIMIT_BAN_THRESHOLD: '3',
      RATE_LIMIT_DEADLINE_MS: '60000',
    });
  }, 180_000);
  afterAll(() => regions?.stop(), 60_000);
  return () => {
    if (!regions) throw new Error('The two-region stack did not start');
    return regions;
  };
}
