/**
 * The failover drill on the two-region local stack (docs/local-stack.md, "The failover drill"):
 * a steady mixed load through the stand-in for Route 53's failover routing (infra/local/failover.ts),
 * the first region's DynamoDB Local killed (SIGKILL) mid-load. Every request sent after the
 * detection is answered by the other region; the creates the first region acknowledged and the
 * other lacks are only those within the lag before the failure; no id is handed out twice; the
 * region comes back, catches up, and both list the same pets: every create acknowledged, but for
 * those of the failure's last moments that DynamoDB Local itself lost to the SIGKILL. It prints
 * its figures (RTO = detection + switch, creates lost against the lag) and asserts behaviour, not
 * timing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type Failover, startFailover } from '../../infra/local/failover.ts';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { type RunningRegions, startRegions } from '../../infra/local/multi-region-stack.ts';
import { generateCredentials } from '../../infra/local/stack-files.ts';
import { stackPort } from '../support/local-stack.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

const NAMES = ['us-east-1', 'eu-west-1'];
const LAG_MS = 500;
/**
 * Route 53's interval (30 s) and timeout (4 s to connect, 2 s more) scaled down, its threshold (3)
 * kept: a check slower than 2 s on a busy machine would make a healthy region flap.
 */
const HEALTH = { intervalMs: 1_000, failureThreshold: 3, timeoutMs: 2_000 };
/**
 * How far before the failure an acknowledged create may still be missing in the other region:
 * the lag, the model's reading of its stream, and a busy machine's delays.
 */
const LOSS_WINDOW_MS = LAG_MS + 2_000;
const WORKERS = 3;

/** One request of the load and its answer. */
interface Outcome {
  readonly operation: 'createPet' | 'createPet+Idempotency-Key' | 'getPet' | 'listPets';
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly status: number;
  /** The region that answered (`X-Failover-Region`). */
  readonly region: string;
  /** The created pet's id. */
  readonly id?: number;
}

let stack: RunningRegions | undefined;
let failover: Failover | undefined;
let directory: string | undefined;

afterEach(async () => {
  await failover?.close();
  await stack?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/**
 * Waits until `condition` holds, checking every 100 ms, for at most 60 s.
 * @throws Error naming `what`, and what `state` says then.
 */
async function until(
  what: string,
  condition: () => Promise<boolean> | boolean,
  state: () => unknown = () => '',
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`Not within 60 s: ${what} ${JSON.stringify(state())}`);
    await sleep(100);
  }
}

/** Every pet id a region lists, following `rel="next"` to the end. */
async function listedIds(base: string, authorization: string): Promise<number[]> {
  const ids: number[] = [];
  let next: string | undefined = `${base}/pets?limit=100`;
  while (next) {
    const answer = await fetch(next, { headers: { Authorization: authorization } });
    if (answer.status !== 200) throw new Error(`listPets answered ${answer.status}`);
    ids.push(...((await answer.json()) as { id: number }[]).map((pet) => pet.id));
    const target = /^<([^>]+)>; rel="next"$/.exec(answer.headers.get('link') ?? '')?.[1];
    next = target ? new URL(target, next).href : undefined;
  }
  return ids.sort((a, b) => a - b);
}

describe('the failover drill', { timeout: 300_000 }, () => {
  it('answers from the other region after detection, loses only the creates within the lag, and catches up', async () => {
    directory = await mkdtemp(join(tmpdir(), 'petstore-drill-'));
    stack = await startRegions({
      names: NAMES,
      port: await stackPort(1),
      dynamoPort: await stackPort(1),
      directory,
      inMemory: false,
      credentials: generateCredentials(),
      lagMs: LAG_MS,
      env: { CURSOR_KEY: newSecretValue() },
    });
    const [primary, secondary] = stack.regions as [
      RunningRegions['regions'][number],
      RunningRegions['regions'][number],
    ];
    const keys = createKeyService({ ...process.env, ...stack.homeEnv });
    const model = stack.replication;
    const tokens = [];
    for (const owner of ['drill load 1', 'drill load 2', 'drill health check']) {
      tokens.push(
        `Bearer ${(await keys.createKey({ plan: 'business', owner }, TEST_CONTEXT)).token}`,
      );
    }
    const [load1 = '', load2 = '', health = ''] = tokens;
    // The pet the health checks read: getPet reads the table each time (listPets has a cache).
    const healthPet = await fetch(`${primary.url}/pets`, {
      method: 'POST',
      headers: { Authorization: health, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'health check', categoryId: 1 }),
    });
    const { id: healthPetId } = (await healthPet.json()) as { id: number };
    // In the other region before its authorizer sees them (a refusal is cached for its TTL).
    await until('the keys and the pet in the other region', () => {
      const { replicated, pending } = model.figures();
      return replicated >= tokens.length + 1 && pending === 0;
    });
    // Each operation once in each region first: the functions' cold starts are no failure.
    for (const { url } of stack.regions) {
      await fetch(`${url}/pets/${healthPetId}`, { headers: { Authorization: health } });
      await fetch(`${url}/pets?limit=1`, { headers: { Authorization: health } });
    }
    await fetch(`${secondary.url}/pets`, {
      method: 'POST',
      headers: { Authorization: health, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'warm-up', categoryId: 1 }),
    });
    failover = await startFailover({
      targets: stack.regions.map(({ name, url }) => ({ name, url })),
      healthCheck: { path: `/pets/${healthPetId}`, headers: { Authorization: health }, ...HEALTH },
    });
    const front = failover.url;

    // A steady mixed load through the stand-in.
    const outcomes: Outcome[] = [];
    let loading = true;
    const worker = async (index: number) => {
      const authorization = index % 2 ? load1 : load2;
      for (let n = index; loading; n += WORKERS) {
        const created = outcomes.filter((outcome) => outcome.id !== undefined);
        const operation = (
          ['createPet', 'createPet+Idempotency-Key', 'getPet', 'listPets'] as const
        )[n % 4] as Outcome['operation'];
        const request: [string, RequestInit] =
          operation === 'getPet'
            ? [`${front}/pets/${created.at(-1)?.id ?? 1}`, {}]
            : operation === 'listPets'
              ? [`${front}/pets?limit=20`, {}]
              : [
                  `${front}/pets`,
                  {
                    method: 'POST',
                    body: JSON.stringify({ name: `drill ${n}`, categoryId: 1 }),
                    headers:
                      operation === 'createPet'
                        ? {}
                        : { 'Idempotency-Key': `drill-${index}-${n}-${Date.now()}` },
                  },
                ];
        const sentAt = Date.now();
        const answer = await fetch(request[0], {
          ...request[1],
          headers: {
            Authorization: authorization,
            'Content-Type': 'application/json',
            ...(request[1].headers as Record<string, string>),
          },
        });
        const body = await answer.text();
        const id = answer.status === 201 ? (JSON.parse(body) as { id: number }).id : undefined;
        outcomes.push({
          operation,
          sentAt,
          answeredAt: Date.now(),
          status: answer.status,
          region: answer.headers.get('x-failover-region') ?? '',
          ...(id !== undefined && { id }),
        });
        await sleep(30);
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));

    await until(
      'creates acknowledged by the first region',
      () => outcomes.filter((o) => o.id !== undefined).length >= 40,
    );
    const failedAt = Date.now();
    process.kill(primary.dynamoPid, 'SIGKILL');
    await until(
      'the failure detected',
      () =>
        failover
          ?.changes()
          .some((c) => c.target === primary.name && !c.healthy && c.at >= failedAt) ?? false,
    );
    const detectedAt =
      failover
        .changes()
        .find(
          (change) => change.target === primary.name && !change.healthy && change.at >= failedAt,
        )?.at ?? 0;
    await until(
      'load answered by the other region',
      () => outcomes.filter((o) => o.sentAt > detectedAt && o.status === 201).length >= 20,
    );
    loading = false;
    await Promise.all(workers);

    // The figures of the failure, printed before they are checked.
    const afterDetection = outcomes.filter((outcome) => outcome.sentAt > detectedAt);
    const switchedAt = Math.min(
      ...afterDetection.filter((o) => o.status < 400).map((o) => o.answeredAt),
    );
    const creates = outcomes.filter((outcome) => outcome.id !== undefined);
    const ackedByPrimary = creates.filter((outcome) => outcome.region === primary.name);
    const lost: Outcome[] = [];
    const lostChecks: number[] = [];
    for (const outcome of ackedByPrimary) {
      const answer = await fetch(`${secondary.url}/pets/${outcome.id}`, {
        headers: { Authorization: health },
      });
      lostChecks.push(answer.status);
      if (answer.status === 404) lost.push(outcome);
    }
    const ids = creates.map((outcome) => outcome.id);
    console.log(
      'Failover drill:',
      JSON.stringify({
        lagMs: LAG_MS,
        healthCheck: HEALTH,
        requests: outcomes.length,
        creates: creates.length,
        detectionMs: detectedAt - failedAt,
        switchMs: switchedAt - detectedAt,
        rtoMs: switchedAt - failedAt,
        healthChanges: failover.changes().map((c) => ({ ...c, at: c.at - failedAt })),
        requestsAfterDetection: afterDetection.length,
        answeredAfterDetectionBy: [...new Set(afterDetection.map((o) => o.region))],
        createsAckedByFailedRegion: ackedByPrimary.length,
        createsAckedWithinLagBeforeFailure: ackedByPrimary.filter(
          (o) => o.answeredAt > failedAt - LAG_MS,
        ).length,
        createsLostUntilRecovery: lost.length,
        lostAckedMsBeforeFailure: lost.map((o) => failedAt - o.answeredAt),
        duplicateIds: ids.length - new Set(ids).size,
        conflicts: model.figures().conflicts.length,
      }),
    );

    // Every request sent after the detection: answered by the other region, none failing.
    expect(afterDetection.length).toBeGreaterThan(0);
    expect(new Set(afterDetection.map((outcome) => outcome.region))).toEqual(
      new Set([secondary.name]),
    );
    expect(afterDetection.filter((outcome) => outcome.status >= 500)).toEqual([]);
    // Acknowledged by the first region, missing in the other: only those within the lag.
    expect(lostChecks.filter((status) => status !== 200 && status !== 404)).toEqual([]);
    expect(lost.filter((outcome) => outcome.answeredAt <= failedAt - LOSS_WINDOW_MS)).toEqual([]);
    // No id handed out twice, across both regions.
    expect(new Set(ids).size).toBe(ids.length);

    // The region comes back, catches up; both list the same pets, the lost ones included (but
    // for those its DynamoDB Local itself lost).
    await stack.restartDynamoDB(primary.name);
    await until(
      'the first region healthy again',
      () => failover?.changes().some((change) => change.healthy && change.at > detectedAt) ?? false,
    );
    // No more requests (each one counts its key, a write to replicate): the model settles.
    await failover.close();
    failover = undefined;
    await until('replication caught up', () => model.figures().pending === 0);
    let listed: [number[], number[]] = [[], []];
    await until(
      'both regions list the same pets',
      async () => {
        listed = [await listedIds(primary.url, health), await listedIds(secondary.url, health)];
        return listed[0].join() === listed[1].join();
      },
      () => ({
        onlyInFirst: listed[0].filter((id) => !listed[1].includes(id)),
        onlyInSecond: listed[1].filter((id) => !listed[0].includes(id)),
      }),
    );
    // Gone for good: DynamoDB Local may lose writes it acknowledged just before a SIGKILL (its
    // store is not AWS's), so only creates of the failure's last moments may be.
    const goneForGood = creates.filter((outcome) => !listed[0].includes(outcome.id ?? 0));
    console.log(
      'Failover drill, after the recovery:',
      JSON.stringify({
        petsListedInEachRegion: listed[0].length,
        createsGoneForGood: goneForGood.length,
        goneAckedMsBeforeFailure: goneForGood.map((o) => failedAt - o.answeredAt),
        replicated: model.figures().replicated,
        conflicts: model.figures().conflicts.length,
      }),
    );
    expect(lost).toEqual(expect.arrayContaining(goneForGood));
    expect(goneForGood.filter((o) => o.answeredAt <= failedAt - LOSS_WINDOW_MS)).toEqual([]);
  });
});
