/**
 * `npm run smoke -- --stage staging|production --key KEY` or `npm run smoke -- --url URL --key KEY`:
 * checks that a deployed stage (or the local stack) answers as the spec says, one line per check,
 * and exits with status 1 when any check fails (2 on bad arguments).
 *
 * With `--stage` the base URL is the stack's `ApiBaseUrl` output (AWS credentials and region from
 * the environment, as for the keys command). The key may also come from `PETSTORE_API_KEY`. The
 * smoke test creates one pet per run, named `smoke <ISO time>`: the API has no delete.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { IDEMPOTENT_REPLAYED_HEADER } from '../../shared/idempotency/key.ts';
import { GET_PET_DEPRECATION_HEADERS } from '../../shared/pets/deprecation.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/rate-limit/headers.ts';
import { isStageName, STACK_OUTPUTS, STAGES, stackName } from '../stages.ts';
import { requireOutput, stackOutputs } from './stack-outputs.ts';

/** The usage line printed on bad arguments. */
export const USAGE = `usage: npm run smoke -- (--stage ${STAGES.join('|')} | --url URL) --key KEY`;

/** The outcome of one check. */
export interface SmokeCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was seen, e.g. `201, id 42`, or why it failed. */
  readonly detail: string;
}

/** A response's status, headers and parsed JSON body (undefined when not JSON). */
interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

class CheckFailed extends Error {}

/** Throws a {@link CheckFailed} with `message` unless `condition` holds. */
function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** Fails unless every rate-limit header is a whole number. */
function expectRateLimitHeaders(headers: Headers): void {
  for (const name of [
    RATE_LIMIT_HEADERS.limit,
    RATE_LIMIT_HEADERS.remaining,
    RATE_LIMIT_HEADERS.reset,
  ]) {
    expect(/^\d+$/.test(headers.get(name) ?? ''), `${name} is '${headers.get(name)}'`);
  }
}

/**
 * Runs every check against `baseUrl` (ending in `/v1/` or `/v1`) with the bearer `key`, in order:
 * createPet with an Idempotency-Key, the same request again (replayed), getPet with its deprecation headers, listPets filtered by
 * status, the rate-limit headers, and a 401 without a key. A check whose request fails (network,
 * unexpected answer) fails alone; checks that need the created pet fail when creation did.
 *
 * @returns One {@link SmokeCheck} per check.
 */
export async function runSmoke(baseUrl: string, key: string): Promise<SmokeCheck[]> {
  const base = baseUrl.replace(/\/+$/, '');
  const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body };
  };
  const authorized = { Authorization: `Bearer ${key}` };
  const checks: SmokeCheck[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      checks.push({ name, ok: true, detail: await run() });
    } catch (error) {
      checks.push({ name, ok: false, detail: (error as Error).message });
    }
  };

  let created: { id: number; status: string } | undefined;
  let createHeaders: Headers | undefined;
  const pet = { name: `smoke ${new Date().toISOString()}`, categoryId: 1, status: 'available' };
  const idempotencyKey = randomUUID();
  const create = () =>
    call('/pets', {
      method: 'POST',
      headers: {
        ...authorized,
        'Content-Type': 'application/json',
        'Idempotency-Key': idempotencyKey,
      },
      body: JSON.stringify(pet),
    });
  await check('createPet with an Idempotency-Key answers 201 with the pet', async () => {
    const answer = await create();
    const body = answer.body as { id?: unknown; name?: unknown; status?: unknown } | undefined;
    expect(answer.status === 201, `status ${answer.status}: ${JSON.stringify(answer.body)}`);
    expect(typeof body?.id === 'number' && body.name === pet.name, `body ${JSON.stringify(body)}`);
    created = { id: body.id as number, status: String(body.status) };
    createHeaders = answer.headers;
    return `201, id ${body.id}`;
  });
  await check('createPet retried with the same Idempotency-Key replays the same pet', async () => {
    expect(created !== undefined, 'no pet was created');
    const answer = await create();
    expect(answer.status === 201, `status ${answer.status}: ${JSON.stringify(answer.body)}`);
    expect(
      (answer.body as { id?: unknown }).id === created.id,
      `body ${JSON.stringify(answer.body)}`,
    );
    const replayed = answer.headers.get(IDEMPOTENT_REPLAYED_HEADER);
    expect(replayed === 'true', `${IDEMPOTENT_REPLAYED_HEADER} is '${replayed}'`);
    return `201, id ${created.id}, ${IDEMPOTENT_REPLAYED_HEADER}: true`;
  });
  await check('getPet answers 200 with the created pet and its deprecation headers', async () => {
    expect(created !== undefined, 'no pet was created');
    const answer = await call(`/pets/${created.id}`, { headers: authorized });
    expect(answer.status === 200, `status ${answer.status}: ${JSON.stringify(answer.body)}`);
    expect(
      (answer.body as { id?: unknown }).id === created.id,
      `body ${JSON.stringify(answer.body)}`,
    );
    for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
      expect(answer.headers.get(name) === value, `${name} is '${answer.headers.get(name)}'`);
    }
    return `200, ${Object.keys(GET_PET_DEPRECATION_HEADERS).join(', ')}`;
  });
  await check('listPets filtered by status answers 200 with pets of that status only', async () => {
    const status = created?.status ?? 'available';
    const answer = await call(`/pets?status=${status}&limit=5`, { headers: authorized });
    expect(answer.status === 200, `status ${answer.status}: ${JSON.stringify(answer.body)}`);
    const pets = answer.body as { status?: unknown }[];
    expect(Array.isArray(pets), `body ${JSON.stringify(answer.body)}`);
    expect(
      pets.every((pet) => pet.status === status),
      `a pet of another status in ${JSON.stringify(pets)}`,
    );
    return `200, ${pets.length} ${status} pet(s)`;
  });
  await check('every answer with a key carries the rate-limit headers', async () => {
    expect(createHeaders !== undefined, 'no createPet answer to look at');
    expectRateLimitHeaders(createHeaders);
    const { headers } = await call('/pets?limit=1', { headers: authorized });
    expectRateLimitHeaders(headers);
    return `${RATE_LIMIT_HEADERS.limit} ${headers.get(RATE_LIMIT_HEADERS.limit)}, ${RATE_LIMIT_HEADERS.remaining} ${headers.get(RATE_LIMIT_HEADERS.remaining)}`;
  });
  await check('a request without a key answers 401 with WWW-Authenticate: Bearer', async () => {
    const answer = await call('/pets');
    expect(answer.status === 401, `status ${answer.status}`);
    expect(answer.headers.get('WWW-Authenticate') === 'Bearer', 'no WWW-Authenticate: Bearer');
    expect(
      (answer.body as { status?: unknown })?.status === 401,
      `body ${JSON.stringify(answer.body)}`,
    );
    return '401';
  });
  return checks;
}

/** One line per check: `ok  ` or `FAIL`, the check, what was seen. */
export function formatCheck({ name, ok, detail }: SmokeCheck): string {
  return `${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`;
}

async function main(): Promise<void> {
  let values: { stage?: string; url?: string; key?: string };
  try {
    ({ values } = parseArgs({
      options: { stage: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' } },
    }));
  } catch {
    values = {};
  }
  const key = values.key ?? process.env.PETSTORE_API_KEY;
  const stage = values.stage;
  if (
    !key ||
    (stage === undefined) === (values.url === undefined) ||
    (stage !== undefined && !isStageName(stage))
  ) {
    console.error(USAGE);
    process.exit(2);
  }
  let baseUrl = values.url;
  if (stage !== undefined && isStageName(stage)) {
    const stack = stackName(stage);
    baseUrl = requireOutput(
      await stackOutputs(new CloudFormationClient({}), stack),
      STACK_OUTPUTS.apiBaseUrl,
      stack,
    );
  }
  const checks = await runSmoke(String(baseUrl), key);
  for (const check of checks) console.log(formatCheck(check));
  process.exit(checks.every((check) => check.ok) ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
}
