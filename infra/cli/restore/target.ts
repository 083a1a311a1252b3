/**
 * Where the restore command works: the local stack (DynamoDB Local, or `DYNAMODB_ENDPOINT`) or a
 * deployed stage (`--stage`, its tables found through the stack outputs), as the keys command.
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  apiKeyIdsNamed,
  registerApiKey,
  type UsagePlanDestination,
} from '../../../shared/apigateway/key-registration.ts';
import { DynamoDBAuditLog } from '../../../shared/dynamodb/audit-log.ts';
import { KEYS_TABLE, PETS_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import { UndoSteps } from '../../../shared/keys/undo.ts';
import { isStandardPlanId, type PlanId } from '../../../shared/plans.ts';
import { readSetting } from '../../../shared/settings.ts';
import {
  STACK_OUTPUTS,
  STAGE_SETTINGS,
  type StageName,
  stackName,
  usagePlanOutputName,
} from '../../stages.ts';
import { type Deployment, type LocalDynamoDB, openLocalDynamoDB } from '../local-dynamodb.ts';
import type { CommandOutput } from '../program.ts';
import { requireOutput, stackOutputs } from '../stack-outputs.ts';

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
  };
  /**
   * The IAM principal ARN running the command, the actor of its `key.restored` entries: on a stage
   * STS GetCallerIdentity's, on the local stack `LOCAL_STACK_ACTOR_ARN`.
   */
  readonly callerArn: (stage: StageName | undefined) => Promise<string>;
  /**
   * A document client of DynamoDB Local when `endpoint` is given, otherwise of the deployed
   * stage's DynamoDB on AWS (default credential chain).
   */
  readonly openClient: (endpoint?: string) => DynamoDBDocumentClient;
  /** The stage's DynamoDB on AWS, for point-in-time recovery (`--to`). */
  readonly dynamodb: DynamoDBClient;
  /** Reads a deployed stage's stack outputs (DescribeStacks). */
  readonly cloudFormation: CloudFormationClient;
  /** Re-creates a restored key's API key and usage plan binding on a stage. */
  readonly apiGateway: APIGatewayClient;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The live table of a restore, where it is, and how a failure on a table reads. */
export interface RestoreTarget {
  /** For messages, e.g. `the local stack (DynamoDB Local at …)`, `stage staging`. */
  readonly description: string;
  readonly liveTable: string;
  readonly client: DynamoDBDocumentClient;
  /** Turns a failure on a table into an error that tells the operator what to do. */
  readonly explain: (error: unknown, tableName: string) => Error;
  /** The stage's stack; absent on the local stack. */
  readonly deployed?: Deployment;
  /** The audit table, where each key put back gets its `key.restored` entry. */
  readonly audit: DynamoDBAuditLog;
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
): Promise<RestoreTarget> {
  const { local, openClient, cloudFormation } = dependencies;
  if (stage === undefined) {
    const { where, explain } = await openLocalDynamoDB(local);
    const client = openClient(local.endpoint);
    return {
      description: `the local stack (${where})`,
      liveTable: table === 'pets' ? local.petsTableName : local.keysTableName,
      client,
      explain,
      audit: new DynamoDBAuditLog(client, local.auditTableName, localRetention()),
    };
  }
  const stack = stackName(stage);
  const outputs = await stackOutputs(cloudFormation, stack);
  const output = table === 'pets' ? STACK_OUTPUTS.petsTableName : STACK_OUTPUTS.keysTableName;
  const client = openClient();
  return {
    description: `stage ${stage} (stack ${stack})`,
    liveTable: requireOutput(outputs, output, stack),
    client,
    explain: (error) => error as Error,
    deployed: { stack, outputs },
    audit: new DynamoDBAuditLog(
      client,
      requireOutput(outputs, STACK_OUTPUTS.auditTableName, stack),
      Number(
        outputs.get(STACK_OUTPUTS.auditRetentionDays) ?? STAGE_SETTINGS[stage].auditRetentionDays,
      ),
    ),
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
  deployed: Deployment,
): Promise<string | undefined> {
  if (record.revokedAt) return undefined;
  if ((await apiKeyIdsNamed(apiGateway, record.keyId)).length > 0) return undefined;
  const undo = new UndoSteps();
  const { apiKeyId, usagePlanId } = await undo.run(
    () => registerApiKey(apiGateway, record, destinationOf(record.plan, deployed), undo),
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
function destinationOf(plan: PlanId, { stack, outputs }: Deployment): UsagePlanDestination {
  return isStandardPlanId(plan)
    ? { kind: 'shared', usagePlanId: requireOutput(outputs, usagePlanOutputName(plan), stack) }
    : { kind: 'own', stack, restApiId: requireOutput(outputs, STACK_OUTPUTS.restApiId, stack) };
}

/** The local stack's audit retention: `AUDIT_RETENTION_DAYS` as the functions read it. */
function localRetention(): number {
  return readSetting('AUDIT_RETENTION_DAYS');
}
