/**
 * The keys command (petstore-spec.md, "Authentication", whose gap
 * "how API keys are issued" it fills, and "Limits"): issues, lists, moves between plans, unbans
 * and revokes API keys on the local stack or on a deployed stage. `keys.ts` is its argv entry;
 * this module takes every dependency (stores, AWS clients, output writers) so that tests run it
 * in-process.
 */
import { parseArgs } from 'node:util';
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { type ApiKeyRecord, type DynamoDBKeyStore, limitsOfKey } from '../../shared/keys/store.ts';
import {
  ALL_PLAN_IDS,
  isPlanId,
  isStandardPlanId,
  MAX_PER_DAY,
  MAX_PER_MINUTE,
  PLAN_IDS,
  type PlanId,
  planName,
  type RequestLimits,
  validateLimits,
} from '../../shared/plans.ts';
import type { DynamoDBRateLimitBans } from '../../shared/rate-limit/bans.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/tables.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../routes.ts';
import {
  isStageName,
  STACK_OUTPUTS,
  STAGES,
  type StageName,
  stackName,
  usagePlanOutputName,
} from '../stages.ts';
import {
  type ApiKeyMove,
  apiKeyIdsNamed,
  deleteUsagePlan,
  disableApiKey,
  moveApiKey,
  ownUsagePlanName,
  registerApiKey,
  type UsagePlanDestination,
  usagePlansOf,
} from './keys-api-gateway.ts';
import { Rollback } from './rollback.ts';

/** What the command needs from the outside world. */
export interface KeysCommandDependencies {
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
  };
  /**
   * Opens a keys table: on DynamoDB Local when `endpoint` is given, otherwise the deployed
   * stage's table on AWS (default credential chain).
   */
  readonly openKeyStore: (tableName: string, endpoint?: string) => DynamoDBKeyStore;
  /** Opens a counters table (rate-limit windows and bans), on DynamoDB Local or AWS as above. */
  readonly openRateLimitBans: (tableName: string, endpoint?: string) => DynamoDBRateLimitBans;
  /** Reads a deployed stage's stack outputs (DescribeStacks). */
  readonly cloudFormation: CloudFormationClient;
  /** Creates, moves, disables and deletes a deployed stage's API keys and usage plans. */
  readonly apiGateway: APIGatewayClient;
  /** Writes one line (without its line break) to standard output. */
  readonly stdout: (line: string) => void;
  /** Writes one line (without its line break) to standard error. */
  readonly stderr: (line: string) => void;
}

/** Exit status of the command: 0 done, 1 failed, 2 usage error. */
export type ExitCode = 0 | 1 | 2;

/** The commands, in the order the usage lists them. */
const COMMANDS = ['create', 'list', 'set-plan', 'revoke', 'unban'] as const;

type CommandName = (typeof COMMANDS)[number];

/** A plan and, for Enterprise, the key's own limits (checked). */
interface PlanChoice {
  readonly plan: PlanId;
  readonly limits?: RequestLimits;
}

/** A parsed command line. */
type KeysCommand =
  | { readonly name: 'help' }
  | (PlanChoice & { readonly name: 'create'; readonly owner?: string; readonly stage?: StageName })
  | { readonly name: 'list'; readonly stage?: StageName }
  | (PlanChoice & { readonly name: 'set-plan'; readonly keyId: string; readonly stage?: StageName })
  | { readonly name: 'revoke' | 'unban'; readonly keyId: string; readonly stage?: StageName };

/** The options that belong to some commands only, with the commands that take them. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly CommandName[]>> = {
  plan: ['create', 'set-plan'],
  'per-minute': ['create', 'set-plan'],
  'per-day': ['create', 'set-plan'],
  owner: ['create'],
};

/** A command line the command does not accept (exit status 2, followed by the usage). */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An operation that could not be done, with a message meant for the operator (exit status 1). */
class KeysCommandError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KeysCommandError';
  }
}

const STANDARD_PLANS = PLAN_IDS.join('|');

/** The help text, also printed after a usage error. */
const KEYS_USAGE = `Usage: npm run keys -- <command> [options]

Issues, lists, moves, unbans and revokes Petstore API keys.

Commands:
  create --plan ${STANDARD_PLANS} [--owner TEXT]
  create --plan enterprise --per-minute N --per-day N [--owner TEXT]
                  Issue a key. Its bearer token is shown once, as the last line of stdout.
  list            One line per key: id, plan, limits, ban, status, owner, created.
  set-plan <key-id> --plan ${STANDARD_PLANS}
  set-plan <key-id> --plan enterprise --per-minute N --per-day N
                  Move a key to another plan, or give an Enterprise key new limits.
  revoke <key-id> Revoke a key; requests with it are then refused with 401.
  unban <key-id>  Lift a key's temporary ban (given for repeated requests after a 429).

A plan change or a revocation reaches requests when the authorizer's cached result for the key
expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.

Options:
  --per-minute N  An Enterprise key's requests per UTC minute: a whole number, 1 to ${MAX_PER_MINUTE}.
  --per-day N     An Enterprise key's requests per UTC day: a whole number, from the per-minute
                  limit to ${MAX_PER_DAY}.
  --stage ${STAGES.join('|')}
                  Work on a deployed stage (its keys and counters tables, API keys and usage
                  plans, found through the stack outputs; AWS credentials and region from the
                  default chain). There an Enterprise key gets a usage plan of its own.
                  Without it: the local stack of \`npm start\`.
  -h, --help      Show this help.

Environment (local stack): DYNAMODB_PORT (default 8000) is DynamoDB Local's port on 127.0.0.1;
${KEYS_TABLE.envVar} and ${COUNTERS_TABLE.envVar} override the tables' names (default ${KEYS_TABLE.localName},
${COUNTERS_TABLE.localName}).`;

/** Characters that would break the one-line-per-key listing or a terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/** `a`, `a or b`, `a, b or c`, for messages. */
function oneOf(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join('');
}

/**
 * Parses the command's arguments (those after `npm run keys --`).
 *
 * @throws UsageError for an unknown command or option, a missing or unknown plan, stage or key
 *   id, missing or invalid Enterprise limits or limits for a standard plan, an empty owner or
 *   one with control characters, or an option another command owns.
 */
function parseKeysArguments(args: readonly string[]): KeysCommand {
  const { values, positionals } = parseCommandLine(args);
  if (values.help) return { name: 'help' };
  const [name, ...operands] = positionals;
  if (name === undefined) throw new UsageError(`Give a command: ${oneOf(COMMANDS)}.`);
  if (!(COMMANDS as readonly string[]).includes(name)) {
    throw new UsageError(`Unknown command "${name}": use ${oneOf(COMMANDS)}.`);
  }
  const command = name as CommandName;
  rejectForeignOptions(command, values);
  const stage = parseStage(values.stage);
  switch (command) {
    case 'create':
      rejectExtraOperands(command, operands);
      return {
        name: command,
        ...parsePlan(command, values),
        owner: parseOwner(values.owner),
        stage,
      };
    case 'list':
      rejectExtraOperands(command, operands);
      return { name: command, stage };
    case 'set-plan':
      return {
        name: command,
        keyId: parseKeyId(command, operands),
        ...parsePlan(command, values),
        stage,
      };
    case 'revoke':
    case 'unban':
      return { name: command, keyId: parseKeyId(command, operands), stage };
  }
}

function parseCommandLine(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        plan: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        owner: { type: 'string' },
        stage: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's messages go on with advice about `--` (after a full stop or on further lines); the
    // first sentence is the point, and the usage follows anyway.
    const [first = ''] = (error as Error).message.split('\n');
    throw new UsageError(first.split('. To specify')[0] as string);
  }
}

function rejectForeignOptions(
  command: CommandName,
  values: Readonly<Record<string, string | boolean | undefined>>,
): void {
  for (const [option, commands] of Object.entries(COMMAND_OPTIONS)) {
    if (values[option] !== undefined && !commands.includes(command)) {
      throw new UsageError(`--${option} is only for ${oneOf(commands)}, not ${command}.`);
    }
  }
}

function parseStage(stage: string | undefined): StageName | undefined {
  if (stage === undefined || isStageName(stage)) return stage;
  throw new UsageError(`Unknown stage "${stage}": use one of ${STAGES.join(', ')}.`);
}

function parseKeyId(command: CommandName, operands: readonly string[]): string {
  const [keyId, ...extra] = operands;
  if (keyId === undefined) throw new UsageError(`${command} needs a key id.`);
  rejectExtraOperands(command, extra);
  return keyId;
}

function rejectExtraOperands(command: CommandName, extra: readonly string[]): void {
  if (extra.length > 0)
    throw new UsageError(`Unexpected argument for ${command}: ${extra.join(' ')}.`);
}

function parseOwner(owner: string | undefined): string | undefined {
  if (owner !== undefined && (owner.trim() === '' || CONTROL_CHARACTERS.test(owner))) {
    throw new UsageError('--owner must be non-blank text without control characters.');
  }
  return owner;
}

/** `--plan`, and for Enterprise `--per-minute` and `--per-day`, checked with `validateLimits`. */
function parsePlan(
  command: CommandName,
  values: { plan?: string; 'per-minute'?: string; 'per-day'?: string },
): PlanChoice {
  const { plan, 'per-minute': perMinute, 'per-day': perDay } = values;
  if (plan === undefined)
    throw new UsageError(`${command} needs --plan ${ALL_PLAN_IDS.join('|')}.`);
  if (!isPlanId(plan)) {
    throw new UsageError(`Unknown plan "${plan}": use one of ${ALL_PLAN_IDS.join(', ')}.`);
  }
  if (isStandardPlanId(plan)) {
    if (perMinute !== undefined || perDay !== undefined) {
      throw new UsageError(
        `--per-minute and --per-day are only for --plan enterprise: ${planName(plan)} has fixed limits.`,
      );
    }
    return { plan };
  }
  if (perMinute === undefined || perDay === undefined) {
    throw new UsageError('--plan enterprise needs --per-minute N and --per-day N.');
  }
  try {
    return {
      plan,
      limits: validateLimits({ perMinute: wholeNumber(perMinute), perDay: wholeNumber(perDay) }),
    };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new UsageError(`Invalid limits: ${error.message}.`);
  }
}

/** Decimal digits as a number; anything else NaN, which `validateLimits` refuses (`Number` alone takes `1e3`, `0x10` or ``). */
function wholeNumber(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * Runs the keys command.
 *
 * Output: `create` prints a summary and, as the LAST LINE OF STDOUT, the bearer token (so
 * `npm run keys -- create --plan free | tail -1` gives the key); `list` prints one line per key
 * (never a token or hash); `set-plan`, `revoke` and `unban` print what they did. Errors go to
 * stderr as one line; usage errors add the usage.
 *
 * On a stage, `create` stores the key, then creates its API Gateway API key (name = key id,
 * value = the record's usage identifier, never the token) and adds it to the plan's usage plan;
 * an Enterprise key gets a usage plan of its own (`<stack>-enterprise-<keyId>`, on the stage
 * `API_STAGE_NAME` of the stack's RestApi) whose throttle and daily quota are
 * `usagePlanSettings` of its limits. `set-plan` changes the stored key, then moves the API key
 * from its usage plan to the new plan's, creating or updating the key's own usage plan for
 * Enterprise and deleting it when the key leaves Enterprise. If API Gateway fails, both undo
 * what they did (`Rollback`), so no usable key is left half-made or half-moved. `revoke` also
 * disables the API Gateway API key.
 *
 * @param args The arguments after `npm run keys --`.
 * @returns 0 when done, 1 when the operation failed (unknown key id, DynamoDB Local not running,
 *   an AWS error), 2 for a usage error.
 */
export async function runKeysCommand(
  args: readonly string[],
  dependencies: KeysCommandDependencies,
): Promise<ExitCode> {
  const { stdout, stderr } = dependencies;
  let command: KeysCommand;
  try {
    command = parseKeysArguments(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr(`keys: ${error.message}`);
    stderr('');
    stderr(KEYS_USAGE);
    return 2;
  }
  if (command.name === 'help') {
    stdout(KEYS_USAGE);
    return 0;
  }
  try {
    const target = await openTarget(command.stage, dependencies);
    switch (command.name) {
      case 'create':
        await createKey(command, target, dependencies);
        break;
      case 'list':
        await listKeys(target, dependencies);
        break;
      case 'set-plan':
        await setPlan(command, target, dependencies);
        break;
      case 'revoke':
        await revokeKey(command.keyId, target, dependencies);
        break;
      case 'unban':
        await unbanKey(command.keyId, target, dependencies);
        break;
    }
    return 0;
  } catch (error) {
    stderr(`keys: ${(error as Error).message}`);
    return 1;
  }
}

/** A deployed stage's stack and its outputs. */
interface Deployment {
  readonly stack: string;
  readonly outputs: ReadonlyMap<string, string>;
}

/** Where the command works: the local stack, or a deployed stage found through its outputs. */
interface Target {
  /** For messages, e.g. `the local stack (table petstore-keys on DynamoDB Local at …)`. */
  readonly description: string;
  readonly keysTableName: string;
  readonly keys: DynamoDBKeyStore;
  /**
   * Opens the counters table (rate-limit windows and bans). Only `list` and `unban` read it, so
   * the other commands do not need its stack output.
   */
  readonly openCounters: () => {
    readonly tableName: string;
    readonly bans: DynamoDBRateLimitBans;
  };
  /** Turns a failure on one of the tables into an error that tells the operator what to do. */
  readonly explain: (error: unknown, tableName: string) => Error;
  /** Absent on the local stack. */
  readonly deployed?: Deployment;
}

async function openTarget(
  stage: StageName | undefined,
  { local, openKeyStore, openRateLimitBans, cloudFormation }: KeysCommandDependencies,
): Promise<Target> {
  if (stage === undefined) {
    if (!local.hasCredentials) {
      throw new KeysCommandError(
        `No DynamoDB Local credentials in ${local.credentialsFile}: start the local stack once with \`npm start\`, which creates them.`,
      );
    }
    const where = `DynamoDB Local at ${local.endpoint}`;
    return {
      description: `the local stack (table ${local.keysTableName} on ${where})`,
      keysTableName: local.keysTableName,
      keys: openKeyStore(local.keysTableName, local.endpoint),
      openCounters: () => ({
        tableName: local.countersTableName,
        bans: openRateLimitBans(local.countersTableName, local.endpoint),
      }),
      explain: (error, tableName) => {
        if (isConnectionRefused(error)) {
          return new KeysCommandError(
            `${where} does not answer: start the local stack with \`npm start\`, or set DYNAMODB_PORT to the DynamoDB Local port of the one running.`,
            { cause: error },
          );
        }
        if ((error as Error).name === 'ResourceNotFoundException') {
          return new KeysCommandError(
            `${where} has no table ${tableName}: start the local stack with \`npm start\`, which creates it.`,
            { cause: error },
          );
        }
        return error as Error;
      },
    };
  }
  const stack = stackName(stage);
  const outputs = await stackOutputs(cloudFormation, stack);
  const keysTableName = requireOutput(outputs, STACK_OUTPUTS.keysTableName, stack);
  return {
    description: `stage ${stage} (table ${keysTableName} of stack ${stack})`,
    keysTableName,
    keys: openKeyStore(keysTableName),
    openCounters: () => {
      const tableName = requireOutput(outputs, STACK_OUTPUTS.countersTableName, stack);
      return { tableName, bans: openRateLimitBans(tableName) };
    },
    explain: (error) => error as Error,
    deployed: { stack, outputs },
  };
}

/**
 * The outputs of a deployed stage's stack (DescribeStacks), by output name.
 *
 * @throws Error saying the stage may not be deployed, or credentials and region are missing.
 */
export async function stackOutputs(
  cloudFormation: CloudFormationClient,
  stack: string,
): Promise<Map<string, string>> {
  try {
    const { Stacks = [] } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stack }),
    );
    return new Map(
      (Stacks[0]?.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
        OutputKey && OutputValue ? [[OutputKey, OutputValue] as const] : [],
      ),
    );
  } catch (error) {
    throw new KeysCommandError(
      `Cannot read stack ${stack} (is the stage deployed, and are AWS credentials and region set?): ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * One output of a stack.
 *
 * @throws Error naming the stack and the missing output.
 */
export function requireOutput(
  outputs: ReadonlyMap<string, string>,
  name: string,
  stack: string,
): string {
  const value = outputs.get(name);
  if (value === undefined)
    throw new KeysCommandError(`Stack ${stack} has no output ${name}: deploy the stage again.`);
  return value;
}

function isConnectionRefused(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';
}

/** Runs a keys-table operation, explaining its failure in the target's terms. */
async function onKeysTable<T>(
  target: Target,
  operation: (keys: DynamoDBKeyStore) => Promise<T>,
): Promise<T> {
  try {
    return await operation(target.keys);
  } catch (error) {
    throw target.explain(error, target.keysTableName);
  }
}

/** Runs a counters-table operation, explaining its failure in the target's terms. */
async function onCountersTable<T>(
  target: Target,
  operation: (bans: DynamoDBRateLimitBans) => Promise<T>,
): Promise<T> {
  const { tableName, bans } = target.openCounters();
  try {
    return await operation(bans);
  } catch (error) {
    throw target.explain(error, tableName);
  }
}

function unknownKey(keyId: string, target: Target): KeysCommandError {
  return new KeysCommandError(
    `No key ${keyId} on ${target.description}: see \`npm run keys -- list\`.`,
  );
}

/** `1,000`: the spec writes its limits this way. */
function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** E.g. `Pro (300 requests/minute, 10,000 requests/day)`. */
function describePlan(record: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): string {
  const { perMinute, perDay } = limitsOfKey(record);
  return `${planName(record.plan)} (${formatCount(perMinute)} requests/minute, ${formatCount(perDay)} requests/day)`;
}

/** A record's own limits, which only an Enterprise key has: what `setPlan` needs to put it back. */
function customLimitsOf(record: ApiKeyRecord): RequestLimits | undefined {
  return isStandardPlanId(record.plan) ? undefined : limitsOfKey(record);
}

/** ISO 8601 time of epoch seconds. */
function isoTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

async function createKey(
  command: Extract<KeysCommand, { name: 'create' }>,
  target: Target,
  { apiGateway, stdout }: KeysCommandDependencies,
): Promise<void> {
  // Resolve the usage plan before anything is stored, so that a missing output leaves nothing behind.
  const destination = target.deployed && usagePlanDestination(command.plan, target.deployed);
  const { record, token } = await onKeysTable(target, (keys) =>
    keys.createKey({ plan: command.plan, owner: command.owner, limits: command.limits }),
  );
  stdout(`Issued key ${record.keyId} on ${target.description}`);
  stdout(`  plan:  ${describePlan(record)}`);
  stdout(`  owner: ${record.owner ?? '-'}`);
  if (destination) {
    const rollback = new Rollback();
    // The authorizer reads the keys table, so a revoked key is unusable whatever else fails.
    rollback.add(`revoke key ${record.keyId}`, () =>
      onKeysTable(target, (keys) => keys.revokeKey(record.keyId)),
    );
    const { apiKeyId, usagePlanId } = await rollback.run(
      () => registerApiKey(apiGateway, record, destination, rollback),
      (failure, undone) =>
        new KeysCommandError(
          `API Gateway refused the key (${failure.message}); undone: ${undone.join(', ')}. No usable key was issued.`,
          { cause: failure },
        ),
    );
    const own = destination.kind === 'own' ? 'its own ' : '';
    stdout(`  API Gateway API key ${apiKeyId}, in ${own}usage plan ${usagePlanId}`);
  }
  stdout('The bearer token below is shown once; only its SHA-256 is kept.');
  stdout(token);
}

/**
 * Where the API key of a key on `plan` belongs on a stage (see `UsagePlanDestination`).
 *
 * @throws KeysCommandError when the stack lacks the output that `plan` needs.
 */
function usagePlanDestination(plan: PlanId, { stack, outputs }: Deployment): UsagePlanDestination {
  return isStandardPlanId(plan)
    ? { kind: 'shared', usagePlanId: requireOutput(outputs, usagePlanOutputName(plan), stack) }
    : { kind: 'own', stack, restApiId: requireOutput(outputs, STACK_OUTPUTS.restApiId, stack) };
}

async function listKeys(target: Target, { stdout }: KeysCommandDependencies): Promise<void> {
  const records = await onKeysTable(target, (keys) => keys.listKeys());
  if (records.length === 0) {
    stdout(`No keys on ${target.description}.`);
    return;
  }
  const now = Date.now();
  const bans = await onCountersTable(target, (bans) =>
    Promise.all(records.map((record) => bans.banState(record.keyId, now))),
  );
  const rows = [
    ['KEY ID', 'PLAN', 'PER MINUTE', 'PER DAY', 'BAN', 'STATUS', 'OWNER', 'CREATED'],
    ...records.map((record, index) => {
      const { perMinute, perDay } = limitsOfKey(record);
      const ban = bans[index];
      return [
        record.keyId,
        planName(record.plan),
        formatCount(perMinute),
        formatCount(perDay),
        ban ? `banned until ${isoTime(ban.bannedUntil)}` : 'not banned',
        record.revokedAt ? 'revoked' : 'active',
        record.owner ?? '-',
        record.createdAt,
      ];
    }),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) {
    stdout(
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
}

async function setPlan(
  command: Extract<KeysCommand, { name: 'set-plan' }>,
  target: Target,
  { apiGateway, stdout }: KeysCommandDependencies,
): Promise<void> {
  const { keyId, plan, limits } = command;
  const current = await onKeysTable(target, (keys) => keys.findById(keyId));
  if (!current) throw unknownKey(keyId, target);
  if (current.revokedAt) {
    throw new KeysCommandError(
      `Key ${keyId} was revoked at ${current.revokedAt}; a revoked key keeps its plan.`,
    );
  }
  // Everything the stage needs is looked up first, so that a missing output or API key changes nothing.
  const move =
    target.deployed && (await lookUpApiKeyMove(apiGateway, keyId, plan, target.deployed));
  const changed = await onKeysTable(target, (keys) => keys.setPlan(keyId, plan, limits));
  if (!changed) throw unknownKey(keyId, target);
  const { previous, record } = changed;
  const rollback = new Rollback();
  rollback.add(`put key ${keyId} back on ${planName(previous.plan)}`, () =>
    onKeysTable(target, (keys) => keys.setPlan(keyId, previous.plan, customLimitsOf(previous))),
  );
  const moved = move
    ? await rollback.run(
        () => moveApiKey(apiGateway, move, previous, record, rollback),
        (failure, undone) =>
          new KeysCommandError(
            `API Gateway refused the move (${failure.message}); undone: ${undone.join(', ')}. Key ${keyId} stays on ${describePlan(previous)}.`,
            { cause: failure },
          ),
      )
    : [];
  stdout(`Moved key ${keyId} on ${target.description}`);
  stdout(`  from: ${describePlan(previous)}`);
  stdout(`  to:   ${describePlan(record)}`);
  for (const line of moved) stdout(`  ${line}`);
  stdout(
    `Requests with the key get the new limits when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
  if (move?.ownPlan && move.destination.kind === 'shared') {
    await deleteOwnUsagePlan(apiGateway, keyId, move.ownPlan.id, stdout);
  }
}

/**
 * Looks up what moving a key's API key to `plan` involves: the API key (exactly one must be
 * named after the key), the usage plans it is in, among them the key's own, and the destination.
 *
 * @throws KeysCommandError when the stack lacks an output or the API key is missing or ambiguous.
 */
async function lookUpApiKeyMove(
  apiGateway: APIGatewayClient,
  keyId: string,
  plan: PlanId,
  deployment: Deployment,
): Promise<ApiKeyMove> {
  const destination = usagePlanDestination(plan, deployment);
  const apiKeyIds = await apiKeyIdsNamed(apiGateway, keyId);
  const [apiKeyId] = apiKeyIds;
  if (apiKeyId === undefined || apiKeyIds.length > 1) {
    throw new KeysCommandError(
      `Key ${keyId} needs exactly one API Gateway API key named after it, and there are ${apiKeyIds.length}: nothing was changed.`,
    );
  }
  const from = await usagePlansOf(apiGateway, apiKeyId);
  const ownName = ownUsagePlanName(deployment.stack, keyId);
  return {
    apiKeyId,
    from,
    ownPlan: from.find(({ name }) => name === ownName),
    destination,
  };
}

/**
 * Deletes the own usage plan of a key that has left Enterprise (the API key is out of it by then).
 *
 * @throws KeysCommandError when API Gateway refuses: the move itself stands, only an empty usage
 *   plan is left, which the message says how to delete.
 */
async function deleteOwnUsagePlan(
  apiGateway: APIGatewayClient,
  keyId: string,
  usagePlanId: string,
  stdout: (line: string) => void,
): Promise<void> {
  try {
    await deleteUsagePlan(apiGateway, usagePlanId);
  } catch (error) {
    throw new KeysCommandError(
      `Key ${keyId} has moved, but its old usage plan ${usagePlanId} could not be deleted (${(error as Error).message}): delete it with \`aws apigateway delete-usage-plan --usage-plan-id ${usagePlanId}\`.`,
      { cause: error },
    );
  }
  stdout(`Deleted usage plan ${usagePlanId}, the key's own while it was on Enterprise.`);
}

async function revokeKey(
  keyId: string,
  target: Target,
  { apiGateway, stdout, stderr }: KeysCommandDependencies,
): Promise<void> {
  const record = await onKeysTable(target, (keys) => keys.revokeKey(keyId));
  if (!record) throw unknownKey(keyId, target);
  stdout(
    `Revoked key ${keyId} (${planName(record.plan)}, owner ${record.owner ?? '-'}) at ${record.revokedAt}.`,
  );
  if (!target.deployed) return;
  try {
    const apiKeyIds = await apiKeyIdsNamed(apiGateway, keyId);
    if (apiKeyIds.length === 0) {
      stderr(`keys: note: no API Gateway API key is named ${keyId}; nothing to disable.`);
    }
    for (const apiKeyId of apiKeyIds) {
      await disableApiKey(apiGateway, apiKeyId);
      stdout(`Disabled API Gateway API key ${apiKeyId}.`);
    }
  } catch (error) {
    throw new KeysCommandError(
      `Key ${keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function unbanKey(
  keyId: string,
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  if (!(await onKeysTable(target, (keys) => keys.findById(keyId)))) throw unknownKey(keyId, target);
  const lifted = await onCountersTable(target, (bans) => bans.unban(keyId, Date.now()));
  stdout(
    lifted
      ? `Lifted the ban on key ${keyId}; it would have run until ${isoTime(lifted.bannedUntil)}.`
      : `Key ${keyId} is not banned; nothing to lift.`,
  );
}
