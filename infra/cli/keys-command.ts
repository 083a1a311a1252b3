/**
 * The keys command (issue 2, section 4; petstore-spec.md, "Authentication", whose gap "how API
 * keys are issued" it fills): issues, lists and revokes API keys on the local stack or on a
 * deployed stage. `keys.ts` is its argv entry; this module takes every dependency (key stores,
 * AWS clients, output writers) so that tests run it in-process.
 */
import { parseArgs } from 'node:util';
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { ApiKeyRecord, DynamoDbKeyStore } from '../../shared/keys/store.ts';
import { isPlanId, PLAN_IDS, PLANS, type PlanId } from '../../shared/plans.ts';
import {
  isStageName,
  STACK_OUTPUTS,
  STAGES,
  type StageName,
  stackName,
  usagePlanOutputName,
} from '../stages.ts';

/** What the command needs from the outside world. */
export interface KeysCommandDependencies {
  /** Where the local stack keeps its keys: DynamoDB Local's URL and the keys table's name. */
  readonly local: { readonly endpoint: string; readonly tableName: string };
  /**
   * Opens a keys table: on DynamoDB Local when `endpoint` is given, otherwise the deployed
   * stage's table on AWS (default credential chain).
   */
  readonly openKeyStore: (tableName: string, endpoint?: string) => DynamoDbKeyStore;
  /** Reads a deployed stage's stack outputs (DescribeStacks). */
  readonly cloudFormation: CloudFormationClient;
  /** Creates, disables and deletes a deployed stage's API keys and usage-plan keys. */
  readonly apiGateway: APIGatewayClient;
  /** Writes one line (without its line break) to standard output. */
  readonly stdout: (line: string) => void;
  /** Writes one line (without its line break) to standard error. */
  readonly stderr: (line: string) => void;
}

/** Exit status of the command: 0 done, 1 failed, 2 usage error. */
export type ExitCode = 0 | 1 | 2;

/** A parsed command line. */
type KeysCommand =
  | { readonly name: 'help' }
  | {
      readonly name: 'create';
      readonly plan: PlanId;
      readonly owner?: string;
      readonly stage?: StageName;
    }
  | { readonly name: 'list'; readonly stage?: StageName }
  | { readonly name: 'revoke'; readonly keyId: string; readonly stage?: StageName };

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

/** The help text, also printed after a usage error. */
const KEYS_USAGE = `Usage: npm run keys -- <command> [options]

Issues, lists and revokes Petstore API keys.

Commands:
  create --plan ${PLAN_IDS.join('|')} [--owner TEXT]
                  Issue a key. Its bearer token is shown once, as the last line of stdout.
  list            One line per key: id, plan, owner, created, status.
  revoke <key-id> Revoke a key; requests with it are then refused with 401.

Options:
  --stage ${STAGES.join('|')}
                  Work on a deployed stage (its keys table, API keys and usage plans, found
                  through the stack outputs; AWS credentials and region from the default chain).
                  Without it: the local stack of \`npm start\`.
  -h, --help      Show this help.

Environment (local stack): DYNAMODB_PORT (default 8000) is DynamoDB Local's port on 127.0.0.1;
KEYS_TABLE_NAME overrides the keys table's name (default petstore-keys).`;

/** Characters that would break the one-line-per-key listing or a terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * Parses the command's arguments (those after `npm run keys --`).
 *
 * @throws UsageError for an unknown command or option, a missing or unknown plan, stage or key
 *   id, an empty owner or one with control characters, or an option another command owns.
 */
function parseKeysArguments(args: readonly string[]): KeysCommand {
  const { values, positionals } = parseCommandLine(args);
  if (values.help) return { name: 'help' };
  const [name, ...operands] = positionals;
  const stage = parseStage(values.stage);
  switch (name) {
    case 'create': {
      rejectExtraOperands(name, operands);
      if (values.plan === undefined) {
        throw new UsageError(`create needs --plan ${PLAN_IDS.join('|')}.`);
      }
      if (!isPlanId(values.plan)) {
        throw new UsageError(`Unknown plan "${values.plan}": use one of ${PLAN_IDS.join(', ')}.`);
      }
      const owner = values.owner;
      if (owner !== undefined && (owner.trim() === '' || CONTROL_CHARACTERS.test(owner))) {
        throw new UsageError('--owner must be non-blank text without control characters.');
      }
      return { name, plan: values.plan, owner, stage };
    }
    case 'list':
      rejectExtraOperands(name, operands);
      rejectCreateOptions(name, values);
      return { name, stage };
    case 'revoke': {
      const [keyId, ...extra] = operands;
      if (keyId === undefined) throw new UsageError('revoke needs a key id.');
      rejectExtraOperands(name, extra);
      rejectCreateOptions(name, values);
      return { name, keyId, stage };
    }
    case undefined:
      throw new UsageError('Give a command: create, list or revoke.');
    default:
      throw new UsageError(`Unknown command "${name}": use create, list or revoke.`);
  }
}

function parseCommandLine(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        plan: { type: 'string' },
        owner: { type: 'string' },
        stage: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's message for an unknown option goes on with advice about `--`; its first sentence is the point.
    throw new UsageError((error as Error).message.split('. To specify')[0] as string);
  }
}

function parseStage(stage: string | undefined): StageName | undefined {
  if (stage === undefined || isStageName(stage)) return stage;
  throw new UsageError(`Unknown stage "${stage}": use one of ${STAGES.join(', ')}.`);
}

function rejectExtraOperands(command: string, extra: string[]): void {
  if (extra.length > 0)
    throw new UsageError(`Unexpected argument for ${command}: ${extra.join(' ')}.`);
}

function rejectCreateOptions(command: string, values: { plan?: string; owner?: string }): void {
  for (const option of ['plan', 'owner'] as const) {
    if (values[option] !== undefined)
      throw new UsageError(`--${option} is only for create, not ${command}.`);
  }
}

/**
 * Runs the keys command.
 *
 * Output: `create` prints a summary and, as the LAST LINE OF STDOUT, the bearer token (so
 * `npm run keys -- create --plan free | tail -1` gives the key); `list` prints one line per key
 * (never a token or hash); `revoke` prints what it did. Errors go to stderr as one line; usage
 * errors add the usage.
 *
 * On a stage, `create` stores the key, then creates its API Gateway API key (name = key id,
 * value = the record's usage identifier, never the token) and adds it to the plan's usage plan;
 * if API Gateway fails, the API key is deleted and the stored key revoked, so no usable key is
 * left half-made. `revoke` also disables the API Gateway API key.
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
      case 'revoke':
        await revokeKey(command.keyId, target, dependencies);
        break;
    }
    return 0;
  } catch (error) {
    stderr(`keys: ${(error as Error).message}`);
    return 1;
  }
}

/** Where the command works: the local stack, or a deployed stage found through its outputs. */
interface Target {
  /** For messages, e.g. `the local stack (table petstore-keys on DynamoDB Local at …)`. */
  readonly description: string;
  readonly keys: DynamoDbKeyStore;
  /** Turns a failure of the keys table into an error that tells the operator what to do. */
  readonly explain: (error: unknown) => Error;
  /** The deployed stage's stack and its outputs, absent on the local stack. */
  readonly deployed?: { readonly stack: string; readonly outputs: ReadonlyMap<string, string> };
}

async function openTarget(
  stage: StageName | undefined,
  { local, openKeyStore, cloudFormation }: KeysCommandDependencies,
): Promise<Target> {
  if (stage === undefined) {
    const where = `DynamoDB Local at ${local.endpoint}`;
    return {
      description: `the local stack (table ${local.tableName} on ${where})`,
      keys: openKeyStore(local.tableName, local.endpoint),
      explain: (error) => {
        if (isConnectionRefused(error)) {
          return new KeysCommandError(`${where} does not answer: start it with \`npm start\`.`, {
            cause: error,
          });
        }
        if ((error as Error).name === 'ResourceNotFoundException') {
          return new KeysCommandError(
            `${where} has no table ${local.tableName}: start the local stack with \`npm start\`, which creates it.`,
            { cause: error },
          );
        }
        return error as Error;
      },
    };
  }
  const stack = stackName(stage);
  const outputs = await stackOutputs(cloudFormation, stack);
  const tableName = requireOutput(outputs, STACK_OUTPUTS.keysTableName, stack);
  return {
    description: `stage ${stage} (table ${tableName} of stack ${stack})`,
    keys: openKeyStore(tableName),
    explain: (error) => error as Error,
    deployed: { stack, outputs },
  };
}

async function stackOutputs(
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

function requireOutput(outputs: ReadonlyMap<string, string>, name: string, stack: string): string {
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
  operation: (keys: DynamoDbKeyStore) => Promise<T>,
): Promise<T> {
  try {
    return await operation(target.keys);
  } catch (error) {
    throw target.explain(error);
  }
}

function describePlan(plan: PlanId): string {
  const { name, perMinute, perDay } = PLANS[plan];
  return `${name} (${perMinute.toLocaleString('en-US')} requests/minute, ${perDay.toLocaleString('en-US')} requests/day)`;
}

async function createKey(
  command: Extract<KeysCommand, { name: 'create' }>,
  target: Target,
  { apiGateway, stdout }: KeysCommandDependencies,
): Promise<void> {
  // Resolve the usage plan before anything is stored, so that a missing output leaves nothing behind.
  const usagePlanId =
    target.deployed &&
    requireOutput(
      target.deployed.outputs,
      usagePlanOutputName(command.plan),
      target.deployed.stack,
    );
  const { record, token } = await onKeysTable(target, (keys) =>
    keys.createKey({ plan: command.plan, owner: command.owner }),
  );
  stdout(`Issued key ${record.keyId} on ${target.description}`);
  stdout(`  plan:  ${describePlan(record.plan)}`);
  stdout(`  owner: ${record.owner ?? '-'}`);
  if (usagePlanId !== undefined) {
    const apiKeyId = await registerApiKey(apiGateway, record, usagePlanId, target);
    stdout(`  API Gateway API key ${apiKeyId}, in usage plan ${usagePlanId}`);
  }
  stdout('The bearer token below is shown once; only its SHA-256 is kept.');
  stdout(token);
}

/**
 * Creates the API Gateway API key of a stored key and adds it to its usage plan; on failure,
 * deletes what was created and revokes the stored key.
 *
 * @returns The API Gateway API key's id.
 */
async function registerApiKey(
  apiGateway: APIGatewayClient,
  record: ApiKeyRecord,
  usagePlanId: string,
  target: Target,
): Promise<string> {
  let apiKeyId: string | undefined;
  try {
    const apiKey = await apiGateway.send(
      new CreateApiKeyCommand({
        name: record.keyId,
        value: record.usageIdentifier,
        enabled: true,
        description: `Petstore ${PLANS[record.plan].name} key${record.owner ? ` of ${record.owner}` : ''}`,
      }),
    );
    apiKeyId = apiKey.id;
    if (!apiKeyId) throw new Error('CreateApiKey returned no id');
    await apiGateway.send(
      new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }),
    );
    return apiKeyId;
  } catch (error) {
    // Revoke first: the authorizer reads the keys table, so a revoked key is unusable even if
    // deleting the API key fails too.
    await onKeysTable(target, (keys) => keys.revokeKey(record.keyId));
    const undone = [`revoked key ${record.keyId}`];
    if (apiKeyId) {
      await apiGateway.send(new DeleteApiKeyCommand({ apiKey: apiKeyId })).then(
        () => undone.push(`deleted API Gateway API key ${apiKeyId}`),
        (deleteError: Error) =>
          undone.push(`could NOT delete API Gateway API key ${apiKeyId} (${deleteError.message})`),
      );
    }
    throw new KeysCommandError(
      `API Gateway refused the key (${(error as Error).message}); ${undone.join(', ')}: no usable key was issued.`,
      { cause: error },
    );
  }
}

async function listKeys(target: Target, { stdout }: KeysCommandDependencies): Promise<void> {
  const records = await onKeysTable(target, (keys) => keys.listKeys());
  if (records.length === 0) {
    stdout(`No keys on ${target.description}.`);
    return;
  }
  const rows = [
    ['KEY ID', 'PLAN', 'OWNER', 'CREATED', 'STATUS'],
    ...records.map((record) => [
      record.keyId,
      record.plan,
      record.owner ?? '-',
      record.createdAt,
      record.revokedAt ? 'revoked' : 'active',
    ]),
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

async function revokeKey(
  keyId: string,
  target: Target,
  { apiGateway, stdout, stderr }: KeysCommandDependencies,
): Promise<void> {
  const record = await onKeysTable(target, (keys) => keys.revokeKey(keyId));
  if (!record)
    throw new KeysCommandError(
      `No key ${keyId} on ${target.description}: see \`npm run keys -- list\`.`,
    );
  stdout(
    `Revoked key ${keyId} (${PLANS[record.plan].name}, owner ${record.owner ?? '-'}) at ${record.revokedAt}.`,
  );
  if (!target.deployed) return;
  try {
    // The API key is named after the key id (see registerApiKey); nameQuery matches by prefix.
    const { items = [] } = await apiGateway.send(new GetApiKeysCommand({ nameQuery: keyId }));
    const apiKeyIds = items.flatMap(({ id, name }) => (id && name === keyId ? [id] : []));
    if (apiKeyIds.length === 0) {
      stderr(`keys: note: no API Gateway API key is named ${keyId}; nothing to disable.`);
    }
    for (const apiKeyId of apiKeyIds) {
      await apiGateway.send(
        new UpdateApiKeyCommand({
          apiKey: apiKeyId,
          patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
        }),
      );
      stdout(`Disabled API Gateway API key ${apiKeyId}.`);
    }
  } catch (error) {
    throw new KeysCommandError(
      `Key ${keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
