/**
 * Where the keys command works: the local stack (DynamoDB Local) or a deployed stage (`--stage`,
 * found through its stack outputs); a failure reads in the target's terms.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { DynamoDBRateLimitBans } from '../../../shared/dynamodb/bans.ts';
import type { DynamoDBKeyUsage } from '../../../shared/dynamodb/usage.ts';
import type { KeyAdministration } from '../../../shared/keys/key-administration.ts';
import type { TokenStage } from '../../../shared/keys/token.ts';
import { STACK_OUTPUTS, type StageName, stackName } from '../../stages.ts';
import { requireOutput, stackOutputs } from '../stack-outputs.ts';

/** The rate limiter's admin operations the command uses: a key's ban state, and lifting a ban. */
export type RateLimitBans = Pick<DynamoDBRateLimitBans, 'banState' | 'unban'>;

/** What the command reads of the counters table: bans, and each key's daily usage. */
export interface Counters {
  readonly bans: RateLimitBans;
  readonly usage: Pick<DynamoDBKeyUsage, 'dailyUsage'>;
}

/** What opening a target needs from the outside world (part of the command's dependencies). */
export interface TargetDependencies {
  /**
   * Where the local stack keeps its keys and counters: DynamoDB Local's URL, the tables' names,
   * and the file of the stack's credentials with whether it holds them.
   */
  readonly local: {
    readonly endpoint: string;
    readonly keysTableName: string;
    readonly countersTableName: string;
    readonly credentialsFile: string;
    readonly hasCredentials: boolean;
    /**
     * Readies a DynamoDB brought by the user (`DYNAMODB_ENDPOINT` is `endpoint`): throws one line
     * when it does not answer, creates the tables it lacks.
     * @default - none: the endpoint is the DynamoDB Local of `npm start`, which created them
     */
    readonly prepare?: () => Promise<void>;
  };
  /**
   * Opens a keys table: on DynamoDB Local when `endpoint` is given, otherwise the deployed
   * stage's table on AWS (default credential chain).
   */
  readonly openKeyStore: (tableName: string, endpoint?: string) => KeyAdministration;
  /** Opens a counters table (rate-limit windows and bans), on DynamoDB Local or AWS as above. */
  readonly openRateLimitBans: (tableName: string, endpoint?: string) => RateLimitBans;
  /** Opens a counters table to read keys' daily usage, on DynamoDB Local or AWS as above. */
  readonly openKeyUsage: (tableName: string, endpoint?: string) => Counters['usage'];
  /** Reads a deployed stage's stack outputs (DescribeStacks). */
  readonly cloudFormation: CloudFormationClient;
}

/** A deployed stage's stack and its outputs, by output name. */
export interface Deployment {
  readonly stack: string;
  readonly outputs: ReadonlyMap<string, string>;
}

/** The local stack, or a deployed stage: its keys and counters tables, and its stack. */
export interface Target {
  /** For messages, e.g. `the local stack (table petstore-keys on DynamoDB Local at …)`. */
  readonly description: string;
  readonly keysTableName: string;
  readonly keys: KeyAdministration;
  /** The stage whose prefix its new tokens carry (`local` for the local stack). */
  readonly tokenStage: TokenStage;
  /**
   * Opens the counters table (rate-limit windows, bans, daily usage). Only `list`, `usage` and
   * `unban` read it, so the other subcommands do not need its stack output.
   *
   * @throws Error when the stage's stack lacks the counters table's output.
   */
  readonly openCounters: () => Counters & { readonly tableName: string };
  /** Turns a failure on one of the tables into an error that tells the operator what to do. */
  readonly explain: (error: unknown, tableName: string) => Error;
  /** The stage's stack; absent on the local stack. */
  readonly deployed?: Deployment;
}

/**
 * Opens the local stack (`stage` undefined) or a deployed stage.
 *
 * @throws Error when the local stack has no credentials file yet (it was never started), or the
 *   stage's stack cannot be read or lacks the keys table's output.
 */
export async function openTarget(
  stage: StageName | undefined,
  dependencies: TargetDependencies,
): Promise<Target> {
  return stage === undefined ? openLocalStack(dependencies) : openStage(stage, dependencies);
}

async function openLocalStack({
  local,
  openKeyStore,
  openRateLimitBans,
  openKeyUsage,
}: TargetDependencies): Promise<Target> {
  const { where, explain } = await openLocalDynamoDB(local);
  return {
    description: `the local stack (table ${local.keysTableName} on ${where})`,
    keysTableName: local.keysTableName,
    keys: openKeyStore(local.keysTableName, local.endpoint),
    tokenStage: 'local',
    openCounters: () => ({
      tableName: local.countersTableName,
      bans: openRateLimitBans(local.countersTableName, local.endpoint),
      usage: openKeyUsage(local.countersTableName, local.endpoint),
    }),
    explain,
  };
}

/** The local stack's DynamoDB as a command reaches it: its URL, credentials, and readying. */
export type LocalDynamoDB = Pick<
  TargetDependencies['local'],
  'endpoint' | 'credentialsFile' | 'hasCredentials' | 'prepare'
>;

/**
 * Readies the local stack's DynamoDB for a command (the keys and restore commands).
 *
 * @returns How messages name it (`DynamoDB Local at …`), and how a failure on one of its tables
 *   reads: not answering, or no such table, each with what to do.
 * @throws Error when the local stack has no credentials file yet (it was never started), or a
 *   `DYNAMODB_ENDPOINT` of the user's does not answer.
 */
export async function openLocalDynamoDB(local: LocalDynamoDB): Promise<{
  readonly where: string;
  readonly explain: Target['explain'];
}> {
  if (!local.hasCredentials) {
    throw new Error(
      `No DynamoDB Local credentials in ${local.credentialsFile}: start the local stack once with \`npm start\`, which creates them.`,
    );
  }
  await local.prepare?.();
  const where = local.prepare
    ? `DynamoDB at ${local.endpoint} (DYNAMODB_ENDPOINT)`
    : `DynamoDB Local at ${local.endpoint}`;
  return {
    where,
    explain: (error, tableName) => {
      if ((error as { code?: unknown } | undefined)?.code === 'ECONNREFUSED') {
        return new Error(
          `${where} does not answer: start the local stack with \`npm start\`, or set DYNAMODB_PORT to the DynamoDB Local port of the one running.`,
          { cause: error },
        );
      }
      if ((error as Error).name === 'ResourceNotFoundException') {
        return new Error(
          `${where} has no table ${tableName}: start the local stack with \`npm start\`, which creates it.`,
          { cause: error },
        );
      }
      return error as Error;
    },
  };
}

async function openStage(
  stage: StageName,
  { openKeyStore, openRateLimitBans, openKeyUsage, cloudFormation }: TargetDependencies,
): Promise<Target> {
  const stack = stackName(stage);
  const outputs = await stackOutputs(cloudFormation, stack);
  const keysTableName = requireOutput(outputs, STACK_OUTPUTS.keysTableName, stack);
  return {
    description: `stage ${stage} (table ${keysTableName} of stack ${stack})`,
    keysTableName,
    keys: openKeyStore(keysTableName),
    tokenStage: stage,
    openCounters: () => {
      const tableName = requireOutput(outputs, STACK_OUTPUTS.countersTableName, stack);
      return { tableName, bans: openRateLimitBans(tableName), usage: openKeyUsage(tableName) };
    },
    explain: (error) => error as Error,
    deployed: { stack, outputs },
  };
}

/**
 * Runs an operation on the target's keys table.
 *
 * @throws The operation's failure, explained in the target's terms (`Target.explain`).
 */
export async function onKeysTable<T>(
  target: Target,
  operation: (keys: KeyAdministration) => Promise<T>,
): Promise<T> {
  try {
    return await operation(target.keys);
  } catch (error) {
    throw target.explain(error, target.keysTableName);
  }
}

/**
 * Runs an operation on the target's counters table.
 *
 * @throws The operation's failure, explained in the target's terms (`Target.explain`).
 */
export async function onCountersTable<T>(
  target: Target,
  operation: (counters: Counters) => Promise<T>,
): Promise<T> {
  const { tableName, ...counters } = target.openCounters();
  try {
    return await operation(counters);
  } catch (error) {
    throw target.explain(error, tableName);
  }
}

/** The error for a key id the target's keys table does not hold. */
export function unknownKey(keyId: string, target: Target): Error {
  return new Error(`No key ${keyId} on ${target.description}: see \`npm run keys -- list\`.`);
}
