/**
 * Where the restore command works: the local stack (DynamoDB Local, or `DYNAMODB_ENDPOINT`) or a
 * deployed stage (`--stage`, its tables found through the stack outputs), as the keys command.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyServiceOn } from '../../../functions/admin/composition-root.ts';
import {
  apiKeyIdsNamed,
  registerApiKey,
  type UsagePlanDestination,
} from '../../../shared/apigateway/key-registration.ts';
import { KEYS_TABLE, PETS_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { UndoSteps } from '../../../shared/keys/undo.ts';
import { isStandardPlanId, type PlanId } from '../../../shared/plans.ts';
import { readSetting, readSettings } from '../../../shared/settings.ts';
import {
  STACK_OUTPUTS,
  STAGE_SETTINGS,
  type StageName,
  usagePlanOutputName,
} from '../../stages.ts';
import { type LocalDynamoDB, openLocalDynamoDB } from '../common/local-dynamodb.ts';
import type { CommandOutput } from '../common/program.ts';
import { requireOutput } from '../common/stack-outputs.ts';
import { type RegionStack, stackInRegion, stacksOfStage } from '../common/stage-stacks.ts';

/** The tables a restore puts items back into. */
export const RESTORABLE_TABLES = { pets: PETS_TABLE, keys: KEYS_TABLE } as const;

/** `pets` or `keys`, as `--table` names them. */
export type RestorableTable = keyof typeof RESTORABLE_TABLES;

/**
 * What the command needs from the outside world, injected so that tests run it in-process: the
 * local stack's DynamoDB and tables, clients of a stage's DynamoDB, CloudFormation and API
 * Gateway, the clock, and the output.
 */
export interface RestoreCommandDependencies extends CommandOutput {
  readonly local: LocalDynamoDB & {
    readonly petsTableName: string;
    readonly keysTableName: string;
    readonly auditTableName: string;
    readonly countersTableName: string;
  };
  /**
   * The IAM principal ARN running the command, the actor of its `key.restored` entries: on a stage
   * STS GetCallerIdentity's, on the local stack its operator's (`LOCAL_OPERATOR`).
   */
  readonly callerArn: (stage: StageName | undefined) => Promise<string>;
  /**
   * A document client of DynamoDB Local when `endpoint` is given, otherwise of the deployed
   * stage's DynamoDB on AWS (default credential chain), in `region` when given (another region
   * than the home region).
   */
  readonly openClient: (endpoint?: string, region?: string) => DynamoDBDocumentClient;
  /** The stage's DynamoDB on AWS in its home region, for point-in-time recovery (`--to`). */
  readonly dynamodb: DynamoDBClient;
  /** Reads a deployed stage's stack outputs (DescribeStacks) in its home region. */
  readonly cloudFormation: CloudFormationClient;
  /** Re-creates a restored key's API key and usage plan binding on a stage's home region. */
  readonly apiGateway: APIGatewayClient;
  /**
   * The clients of a stage's region other than the home region.
   * @default - new clients of that region (default credential chain)
   */
  readonly regionClients?: (region: string) => RegionClients;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The clients of one region of a stage. */
export interface RegionClients {
  readonly dynamodb: DynamoDBClient;
  readonly apiGateway: APIGatewayClient;
  readonly cloudFormation: CloudFormationClient;
}

/** The live table of a restore, where it is, and how a failure on a table reads. */
export interface RestoreTarget {
  /** For messages, e.g. `the local stack (DynamoDB Local at …)`, `stage staging`. */
  readonly description: string;
  readonly liveTable: string;
  readonly client: DynamoDBDocumentClient;
  /** Turns a failure on a table into an error that tells the operator what to do. */
  readonly explain: (error: unknown, tableName: string) => Error;
  /** The region read, as `--region` gives it (absent: the home region, or the local stack). */
  readonly region?: string;
  /** DynamoDB of the region read, for point-in-time recovery (`--to`). */
  readonly dynamodb: DynamoDBClient;
  /**
   * Every region of the stage, home first, each with its API Gateway: where a key put back gets
   * its API key again. None on the local stack.
   */
  readonly regions: readonly (RegionStack & { readonly apiGateway: APIGatewayClient })[];
  /**
   * The key service on the live keys table, through which every key is put back with its
   * `key.restored` entry (built when asked: a pets restore needs no key table).
   * @throws Error when the stack lacks an output of the tables it needs.
   */
  readonly keyService: () => KeyService;
}

/**
 * Opens the live table `table` on the local stack (`stage` undefined) or a deployed stage.
 *
 * @throws Error when the local stack was never started, or the stage's stack cannot be read or
 *   lacks the table's output.
 */
export async function openRestoreTarget(
  stage: StageName | undefined,
  table: RestorableTable,
  dependencies: RestoreCommandDependencies,
  region?: string,
): Promise<RestoreTarget> {
  const { local, openClient, cloudFormation, dynamodb } = dependencies;
  if (stage === undefined) {
    const { where, explain } = await openLocalDynamoDB(local);
    const client = openClient(local.endpoint);
    return {
      description: `the local stack (${where})`,
      liveTable: table === 'pets' ? local.petsTableName : local.keysTableName,
      client,
      explain,
      keyService: () =>
        keyServiceAt(client, {
          keys: local.keysTableName,
          audit: local.auditTableName,
          counters: local.countersTableName,
          retentionDays: readSetting('AUDIT_RETENTION_DAYS'),
        }),
      dynamodb,
      regions: [],
    };
  }
  const clientsIn = dependencies.regionClients ?? newRegionClients;
  const stacks = await stacksOfStage(stage, {
    cloudFormation,
    cloudFormationIn: (each) => clientsIn(each).cloudFormation,
  });
  const clientsOf = (stack: RegionStack): RegionClients =>
    stack.home ? dependencies : clientsIn(stack.region);
  const read = stackInRegion(stacks, stage, region);
  const { stackName: stack, outputs } = read;
  const output = table === 'pets' ? STACK_OUTPUTS.petsTableName : STACK_OUTPUTS.keysTableName;
  const client = read.home ? openClient() : openClient(undefined, read.region);
  const [home] = stacks as [RegionStack];
  return {
    description: `stage ${stage} (stack ${stack}${read.home ? '' : ` in ${read.region}`})`,
    liveTable: requireOutput(outputs, output, stack),
    client,
    explain: (error) => error as Error,
    ...(region !== undefined && { region }),
    dynamodb: clientsOf(read).dynamodb,
    regions: stacks.map((each) => ({ ...each, apiGateway: clientsOf(each).apiGateway })),
    // Written in the home region only (see `write`), whose stack names the tables.
    keyService: () =>
      keyServiceAt(
        client,
        {
          keys: requireOutput(home.outputs, STACK_OUTPUTS.keysTableName, home.stackName),
          audit: requireOutput(home.outputs, STACK_OUTPUTS.auditTableName, home.stackName),
          counters: requireOutput(home.outputs, STACK_OUTPUTS.countersTableName, home.stackName),
          retentionDays: Number(
            home.outputs.get(STACK_OUTPUTS.auditRetentionDays) ??
              STAGE_SETTINGS[stage].auditRetentionDays,
          ),
        },
        stage,
      ),
  };
}

/**
 * The key service on `client` and these tables, for the tokens of `stage`; without API Gateway:
 * the command re-creates a key's API keys itself (`ensureApiKey`).
 */
function keyServiceAt(
  client: DynamoDBDocumentClient,
  tables: { keys: string; audit: string; counters: string; retentionDays: number },
  stage?: StageName,
): KeyService {
  const settings = readSettings({
    KEYS_TABLE_NAME: tables.keys,
    AUDIT_TABLE_NAME: tables.audit,
    AUDIT_RETENTION_DAYS: String(tables.retentionDays),
    COUNTERS_TABLE_NAME: tables.counters,
    ...(stage && { PETSTORE_STAGE: stage }),
  });
  return keyServiceOn({ client, settings });
}

/** A stage's stack in one region: its name and outputs. */
type StackOf = Pick<RegionStack, 'stackName' | 'outputs'>;

/** New clients of `region`, with the default credential chain. */
function newRegionClients(region: string): RegionClients {
  return {
    dynamodb: new DynamoDBClient({ region }),
    apiGateway: new APIGatewayClient({ region }),
    cloudFormation: new CloudFormationClient({ region }),
  };
}

/**
 * Re-creates the API key of a key put back on a stage, in its plan's usage plan, when API Gateway
 * has none named after the key (`registerApiKey`; a half-made one is deleted again). A revoked
 * key needs none.
 *
 * @returns A phrase for the report, or `undefined` when nothing was needed.
 * @throws Error when API Gateway refuses, after the undo.
 */
export async function ensureApiKey(
  apiGateway: APIGatewayClient,
  record: ApiKeyRecord,
  stack: StackOf,
): Promise<string | undefined> {
  if (record.revokedAt) return undefined;
  if ((await apiKeyIdsNamed(apiGateway, record.keyId)).length > 0) return undefined;
  const undo = new UndoSteps();
  const { apiKeyId, usagePlanId } = await undo.run(
    () => registerApiKey(apiGateway, record, destinationOf(record.plan, stack), undo),
    (failure, undone) =>
      new Error(
        `API Gateway refused the API key of ${record.keyId} (${failure.message}); undone: ${undone.join(', ') || 'nothing'}.`,
        { cause: failure },
      ),
  );
  return `API Gateway API key ${apiKeyId} re-created in usage plan ${usagePlanId}`;
}

/**
 * Where the API key of a key on `plan` belongs on a stage, from its stack outputs: its standard
 * plan's usage plan, or for Enterprise a usage plan of its own on the stack's RestApi.
 *
 * @throws Error when the stack lacks the output that `plan` needs.
 */
function destinationOf(plan: PlanId, { stackName: stack, outputs }: StackOf): UsagePlanDestination {
  return isStandardPlanId(plan)
    ? { kind: 'shared', usagePlanId: requireOutput(outputs, usagePlanOutputName(plan), stack) }
    : { kind: 'own', stack, restApiId: requireOutput(outputs, STACK_OUTPUTS.restApiId, stack) };
}
