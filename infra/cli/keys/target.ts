/**
 * Where the keys command works: the admin API of the local stack (`npm start`, signed with the
 * stack's own credentials) or of a deployed stage (`--stage`, found through its stack outputs,
 * signed with the operator's credentials from the SDK's default chain), through the typed client
 * of infra/cli/admin-api-client.ts; a refusal or failure reads in the target's terms.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { Middleware } from 'openapi-fetch';
import type { TokenStage } from '../../../shared/keys/token.ts';
import { STACK_OUTPUTS, type StageName, stackName } from '../../stages.ts';
import {
  type AdminApiClient,
  type AdminApiClientOptions,
  type AdminSchemas,
  adminApiClient,
} from '../admin-api-client.ts';
import { requireOutput, stackOutputs } from '../common/stack-outputs.ts';

/** What opening a target needs from the outside world (part of the command's dependencies). */
export interface TargetDependencies {
  /**
   * The local stack's admin API: its base URL (`ADMIN_PORT`), the file of the stack's
   * credentials, and the credentials (absent when the stack was never started).
   */
  readonly local: {
    readonly adminApiUrl: string;
    readonly credentialsFile: string;
    readonly credentials?: AdminApiClientOptions['credentials'];
    /** The region the local stack's requests are signed for. */
    readonly region: string;
  };
  /** The operator's credentials for a deployed stage (the SDK's default chain). */
  readonly stageCredentials: AdminApiClientOptions['credentials'];
  /** Reads a deployed stage's stack outputs (DescribeStacks); its region is the stage's. */
  readonly cloudFormation: CloudFormationClient;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The local stack, or a deployed stage: its admin API. */
export interface Target {
  /** For messages, e.g. `the local stack (admin API at http://127.0.0.1:3100/admin)`. */
  readonly description: string;
  /** The stage whose prefix its new tokens carry (`local` for the local stack). */
  readonly tokenStage: TokenStage;
  /**
   * The admin API, signing as the operator; a call it refuses or that fails rejects with an Error
   * for the operator (see `operatorErrors`), so `dataOf` gives a call's answer.
   */
  readonly admin: AdminApiClient;
  /** Whether it is a deployed stage (whose keys have API Gateway API keys). */
  readonly deployed: boolean;
}

/**
 * Opens the local stack (`stage` undefined) or a deployed stage.
 *
 * @throws Error when the local stack has no credentials file yet (it was never started), or the
 *   stage's stack cannot be read or lacks the admin API's output.
 */
export async function openTarget(
  stage: StageName | undefined,
  dependencies: TargetDependencies,
): Promise<Target> {
  return stage === undefined ? openLocalStack(dependencies) : openStage(stage, dependencies);
}

function openLocalStack({ local, fetch }: TargetDependencies): Target {
  if (!local.credentials) {
    throw new Error(
      `No DynamoDB Local credentials in ${local.credentialsFile}: start the local stack once with \`npm start\`, which creates them.`,
    );
  }
  return targetOf(
    {
      description: `the local stack (admin API at ${local.adminApiUrl})`,
      tokenStage: 'local',
      deployed: false,
    },
    { baseUrl: local.adminApiUrl, region: local.region, credentials: local.credentials, fetch },
  );
}

async function openStage(
  stage: StageName,
  { cloudFormation, stageCredentials, fetch }: TargetDependencies,
): Promise<Target> {
  const stack = stackName(stage);
  const outputs = await stackOutputs(cloudFormation, stack);
  const adminApiUrl = requireOutput(outputs, STACK_OUTPUTS.adminApiBaseUrl, stack);
  return targetOf(
    {
      description: `stage ${stage} (admin API of stack ${stack})`,
      tokenStage: stage,
      deployed: true,
    },
    {
      baseUrl: adminApiUrl,
      region: await cloudFormation.config.region(),
      credentials: stageCredentials,
      fetch,
    },
  );
}

/** A target whose admin API is a client of `options` with the target's `operatorErrors`. */
function targetOf(about: Omit<Target, 'admin'>, options: AdminApiClientOptions): Target {
  const admin = adminApiClient(options);
  admin.use(operatorErrors(about, options.baseUrl.replace(/\/$/, '')));
  return { ...about, admin };
}

/**
 * The admin API's answer of a call that succeeded (a refusal or failure has rejected the call:
 * `operatorErrors`).
 *
 * @throws Error when a 2xx answer has no body, which no operation of the document answers.
 */
export async function dataOf<Data>(call: Promise<{ readonly data?: Data }>): Promise<Data> {
  const { data } = await call;
  if (data === undefined) throw new Error('The admin API answered without a body.');
  return data;
}

/**
 * Every item of a list of the admin API, page after page: `page` is called with the first query,
 * then with the query of each answer's `Link: <…>; rel="next"` (the link followed as given, never
 * built), until an answer has none.
 * @param page One call of the list's operation, and the items its answer holds.
 * @throws Error as the calls do.
 */
export async function everyPage<Item, Query extends object>(
  first: Query,
  page: (query: Query) => Promise<{ readonly items: Item[]; readonly response: Response }>,
): Promise<Item[]> {
  const items: Item[] = [];
  for (let query: Query | undefined = first; query !== undefined; ) {
    const answer = await page(query);
    items.push(...answer.items);
    query = nextPageQuery<Query>(answer.response);
  }
  return items;
}

/** The query of the `rel="next"` link of an answer's `Link` header, or `undefined`: the last page. */
function nextPageQuery<Query>(response: Response): Query | undefined {
  const link = response.headers.get('link')?.match(/^<([^>]*)>;\s*rel="next"$/);
  if (!link?.[1]) return undefined;
  return Object.fromEntries(new URL(link[1], response.url).searchParams) as Query;
}

/**
 * The target's errors for the operator, as an openapi-fetch middleware: an unknown key
 * (`key_not_found`) as `unknownKey` says it, any other refusal with the API's message, an admin
 * API that does not answer (or not JSON) with what to do.
 */
function operatorErrors(target: Omit<Target, 'admin'>, url: string): Middleware {
  return {
    async onResponse({ response, params }) {
      if (response.ok) return undefined;
      const body = (await response.json().catch(() => undefined)) as
        | Partial<AdminSchemas['Error']>
        | undefined;
      const keyId = params.path?.keyId;
      if (body?.code === 'key_not_found' && typeof keyId === 'string') {
        throw unknownKey(keyId, target);
      }
      throw new Error(
        body?.message ?? `The admin API at ${url} failed: it answered ${response.status}.`,
      );
    },
    onError({ error }) {
      return unreachable(error, target, url);
    },
  };
}

/** The error for an admin API that could not be reached, saying what to do. */
function unreachable(error: unknown, target: Pick<Target, 'deployed'>, url: string): Error {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  if (!target.deployed && code === 'ECONNREFUSED') {
    return new Error(
      `The admin API at ${url} does not answer: start the local stack with \`npm start\`, or set ADMIN_PORT to the admin API port of the one running.`,
      { cause: error },
    );
  }
  return new Error(`The admin API at ${url} failed: ${(error as Error).message}`, {
    cause: error,
  });
}

/** The error for a key id the target does not hold. */
function unknownKey(keyId: string, target: Pick<Target, 'description'>): Error {
  return new Error(`No key ${keyId} on ${target.description}: see \`npm run keys -- list\`.`);
}
