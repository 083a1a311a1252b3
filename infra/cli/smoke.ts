/**
 * `npm run smoke -- (--stage staging|production [--region R | --global] [--outputs-file FILE]...
 * | --url URL) --key KEY`: checks that a deployed stage (each region's `RegionalApiBaseUrl`, then
 * the global `ApiBaseUrl`, from CloudFormation or from the files `cdk deploy --outputs-file`
 * wrote) or the local stack answers as docs/openapi.yaml says, one line per check. Each run of
 * the checks creates one pet, `smoke <ISO time>`: the API has no delete.
 */
import { randomUUID } from 'node:crypto';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { Option } from 'commander';
import {
  type CreatedPet,
  type DeprecationNotice,
  PetstoreClient,
  PetstoreError,
  type RateLimitState,
} from '../../client/src/index.ts';
import { deprecationHeaders } from '../../shared/http/deprecation.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/http/rate-limit-headers.ts';
import { routeOf } from '../routes.ts';
import { STACK_OUTPUTS, STAGES, type StageName } from '../stages.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runMain,
  runProgram,
  UsageError,
} from './common/program.ts';
import { requireOutput } from './common/stack-outputs.ts';
import {
  cloudFormationOutputs,
  outputsFiles,
  sdkRegion,
  stageStacks,
} from './common/stage-stacks.ts';

/** How the smoke command reports errors: a usage error is the usage line alone. */
const SMOKE_STYLE: CommandStyle = { errorPrefix: 'smoke: ', briefUsage: true };

/** The command's arguments, as its usage line and help show them. */
const ARGUMENTS = `(--stage ${STAGES.join('|')} [--region REGION | --global] [--outputs-file FILE]... | --url URL) --key KEY`;

/** The usage line printed on bad arguments. */
export const USAGE = `usage: npm run smoke -- ${ARGUMENTS}`;

/** The outcome of one check. */
export interface SmokeCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was seen, e.g. `201, id 42`, or why it failed. */
  readonly detail: string;
}

class CheckFailed extends Error {}

/** Throws a {@link CheckFailed} with `message` unless `condition` holds. */
function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** Fails unless the binding window's limit, remaining requests and reset were all sent. */
function expectRateLimitState({ limit, remaining, reset }: RateLimitState): void {
  expect(limit !== undefined, `${RATE_LIMIT_HEADERS.limit} is missing`);
  expect(remaining !== undefined, `${RATE_LIMIT_HEADERS.remaining} is missing`);
  expect(reset !== undefined, `${RATE_LIMIT_HEADERS.reset} is missing`);
}

/** What a failed call saw: `status 401: unauthorized (…)`, or the client's own error code. */
function seen(error: unknown): string {
  if (!(error instanceof PetstoreError)) return (error as Error).message;
  return `status ${error.status ?? 'none'}: ${error.code} (${error.message})`;
}

/**
 * Runs every check against `baseUrl` (ending in `/v1/` or `/v1`) with the bearer `key`, through
 * the official client (client/), in order: createPet with an Idempotency-Key, the same request
 * again (replayed), getPet with its deprecation notice, listPets filtered by status, the
 * rate-limit state, and a 401 with an empty key. A check whose call fails (network, unexpected
 * answer) fails alone; checks that need the created pet fail when creation did.
 *
 * @returns One {@link SmokeCheck} per check.
 */
export async function runSmoke(baseUrl: string, key: string): Promise<SmokeCheck[]> {
  const deprecations: DeprecationNotice[] = [];
  // A failing stage should fail the smoke test within seconds, not wait out long Retry-Afters.
  const client = (apiKey: string) =>
    new PetstoreClient({
      baseUrl,
      apiKey,
      retry: { maxAttempts: 2, maxElapsedMs: 15_000 },
      onDeprecation: (notice) => deprecations.push(notice),
    });
  const petstore = client(key);
  const checks: SmokeCheck[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      checks.push({ name, ok: true, detail: await run() });
    } catch (error) {
      checks.push({ name, ok: false, detail: seen(error) });
    }
  };

  let created: CreatedPet | undefined;
  const pet = {
    name: `smoke ${new Date().toISOString()}`,
    categoryId: 1,
    status: 'available' as const,
  };
  const idempotencyKey = randomUUID();
  await check('createPet with an Idempotency-Key answers 201 with the pet', async () => {
    const answer = await petstore.createPet(pet, { idempotencyKey });
    expect(answer.data.name === pet.name, `body ${JSON.stringify(answer.data)}`);
    created = answer;
    return `${answer.status}, id ${answer.data.id}`;
  });
  await check('createPet retried with the same Idempotency-Key replays the same pet', async () => {
    expect(created !== undefined, 'no pet was created');
    const answer = await petstore.createPet(pet, { idempotencyKey });
    expect(answer.data.id === created.data.id, `body ${JSON.stringify(answer.data)}`);
    expect(answer.replayed, 'Idempotent-Replayed is not true');
    return `${answer.status}, id ${answer.data.id}, Idempotent-Replayed: true`;
  });
  await check('getPet answers 200 with the created pet and its deprecation headers', async () => {
    expect(created !== undefined, 'no pet was created');
    const { deprecation } = routeOf('getPet');
    expect(deprecation !== undefined, "getPet's row in infra/routes.ts has no deprecation");
    const answer = await petstore.getPet(created.data.id);
    expect(answer.data.id === created.data.id, `body ${JSON.stringify(answer.data)}`);
    const headers = deprecationHeaders(deprecation);
    for (const [name, value] of Object.entries(headers)) {
      expect(answer.headers.get(name) === value, `${name} is '${answer.headers.get(name)}'`);
    }
    const [notice] = deprecations;
    expect(
      notice?.sunset?.getTime() === deprecation.sunset.getTime(),
      'the client was not told of the sunset',
    );
    return `${answer.status}, ${Object.keys(headers).join(', ')}`;
  });
  await check('listPets filtered by status answers 200 with pets of that status only', async () => {
    const status = created?.data.status ?? 'available';
    const { data: pets, status: code } = await petstore.listPets({ status, limit: 5 });
    expect(
      pets.every((each) => each.status === status),
      `a pet of another status in ${JSON.stringify(pets)}`,
    );
    return `${code}, ${pets.length} ${status} pet(s)`;
  });
  await check('every answer with a key carries the rate-limit headers', async () => {
    expect(created !== undefined, 'no createPet answer to look at');
    expectRateLimitState(created.rateLimit);
    const { rateLimit } = await petstore.listPets({ limit: 1 });
    expectRateLimitState(rateLimit);
    return `${RATE_LIMIT_HEADERS.limit} ${rateLimit.limit}, ${RATE_LIMIT_HEADERS.remaining} ${rateLimit.remaining}`;
  });
  await check('a request with an empty key answers 401 with WWW-Authenticate: Bearer', async () => {
    const error = await client('')
      .listPets()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error instanceof PetstoreError, `no error: ${seen(error)}`);
    expect(error.status === 401 && error.code === 'unauthorized', seen(error));
    expect(error.headers?.get('WWW-Authenticate') === 'Bearer', 'no WWW-Authenticate: Bearer');
    return '401';
  });
  return checks;
}

/** One line per check: `ok  ` or `FAIL`, the check, what was seen. */
export function formatCheck({ name, ok, detail }: SmokeCheck): string {
  return `${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`;
}

/**
 * What the smoke command needs from outside: CloudFormation in a region, for a stage's base URLs
 * when no outputs file is given; the stage's home region; and the output.
 */
export interface SmokeDependencies extends CommandOutput {
  /** A CloudFormation client of `region`. */
  readonly cloudFormation: (region: string) => CloudFormationClient;
  /** The home region, where the stage's home stack is read (the SDK's: `AWS_REGION`). */
  readonly homeRegion: () => Promise<string>;
}

/** A base URL the smoke test checks, and what it is: a region of the stage, or `global`. */
export interface SmokeTarget {
  readonly label?: string;
  readonly url: string;
}

/**
 * Runs the smoke command: every check of {@link runSmoke} against each target, one line each on
 * stdout, after a line naming the target (`us-west-2: https://…/v1/`) when it is a stage's.
 *
 * @returns 0 when every check passed, 1 when one failed (or a stack's output could not be read),
 *   2 for a usage error: no key, not exactly one of `--stage` and `--url`, or `--region`,
 *   `--global` or `--outputs-file` without `--stage`, or both `--region` and `--global`.
 */
export function runSmokeCommand(
  args: readonly string[],
  dependencies: SmokeDependencies,
): Promise<ExitCode> {
  const program = newProgram('npm run smoke --', dependencies, SMOKE_STYLE)
    .usage(ARGUMENTS)
    .description(
      "Checks that a deployed stage (each of its regions' own base URL, then its global address) or the local stack answers as the API says.",
    )
    .addOption(
      new Option(
        '--stage <stage>',
        "A deployed stage, its base URLs from its stacks' outputs.",
      ).choices(STAGES),
    )
    .option(
      '--region <region>',
      "With --stage: only this region's own base URL (RegionalApiBaseUrl).",
    )
    .option('--global', 'With --stage: only the global address (ApiBaseUrl).')
    .option(
      '--outputs-file <file>',
      "With --stage: read the outputs from this file, written by cdk deploy's --outputs-file, not from CloudFormation; repeat it for several.",
      (file: string, files: string[] = []) => [...files, file],
    )
    .option('--url <url>', 'The base URL, ending in /v1, e.g. http://127.0.0.1:3000/v1.')
    .addOption(new Option('--key <key>', 'The bearer API key.').env('PETSTORE_API_KEY'))
    .addHelpText(
      'after',
      "\nThe stage's home stack is read in the AWS SDK's region (AWS_REGION): the stage's home region.",
    )
    .action(async (options: SmokeOptions) => {
      const { stage, url, key, outputsFile, region, global } = options;
      if (
        !key ||
        (stage === undefined) === (url === undefined) ||
        ((outputsFile || region || global) && !stage) ||
        (region && global)
      ) {
        throw new UsageError(
          'Give --key and one of --stage, --url; --region, --global or --outputs-file with --stage.',
        );
      }
      const targets = url ? [{ url }] : await stageTargets(dependencies, options);
      const failedAt: string[] = [];
      let failed = 0;
      let total = 0;
      for (const target of targets) {
        if (target.label) dependencies.stdout(`${target.label}: ${target.url}`);
        const checks = await runSmoke(target.url, key);
        for (const check of checks) dependencies.stdout(formatCheck(check));
        const failing = checks.filter((check) => !check.ok).length;
        if (failing > 0 && target.label) failedAt.push(target.label);
        failed += failing;
        total += checks.length;
      }
      if (failed > 0) {
        const where = failedAt.length > 0 ? ` (${failedAt.join(', ')})` : '';
        throw new Error(`${failed} of ${total} checks failed${where}.`);
      }
    });
  return runProgram(program, args, dependencies, SMOKE_STYLE);
}

/** The smoke command's options, as commander parses them. */
interface SmokeOptions {
  readonly stage?: StageName;
  readonly region?: string;
  readonly global?: boolean;
  readonly outputsFile?: string[];
  readonly url?: string;
  readonly key?: string;
}

/**
 * A deployed stage's base URLs, from its stacks' outputs (stage-stacks.ts): each region's own
 * (`RegionalApiBaseUrl`), home first, then the global address (the home stack's `ApiBaseUrl`)
 * unless it is one of them (a stage without a custom domain); only `--region`'s, or only the
 * global address with `--global`. The outputs come from the files when given
 * (`{"petstore-staging": {"ApiBaseUrl": …}}`, as `cdk deploy --outputs-file` writes them: no AWS
 * call), otherwise from CloudFormation DescribeStacks in each stack's region.
 *
 * @throws Error when a file cannot be read or parsed, or a stack or its output is missing.
 */
async function stageTargets(
  dependencies: SmokeDependencies,
  { stage, region, global, outputsFile }: SmokeOptions,
): Promise<SmokeTarget[]> {
  const homeRegion = await dependencies.homeRegion();
  const read = outputsFile
    ? await outputsFiles(outputsFile)
    : cloudFormationOutputs(dependencies.cloudFormation);
  const stacks = await stageStacks(stage as StageName, {
    homeRegion,
    region: global ? homeRegion : region,
    read,
  });
  const home = region === undefined ? stacks.find((stack) => stack.home) : undefined;
  const address = home && {
    label: 'global',
    url: requireOutput(home.outputs, STACK_OUTPUTS.apiBaseUrl, home.stackName),
  };
  if (global && address) return [address];
  const regional = stacks.map(({ region: label, outputs, stackName }) => ({
    label,
    url: requireOutput(outputs, STACK_OUTPUTS.regionalApiBaseUrl, stackName),
  }));
  const checked = regional.some(({ url }) => url === address?.url);
  return address && !checked ? [...regional, address] : regional;
}

await runMain(import.meta.url, SMOKE_STYLE, (args, output) =>
  runSmokeCommand(args, {
    ...output,
    cloudFormation: (region) => new CloudFormationClient({ region }),
    homeRegion: sdkRegion,
  }),
);
