/**
 * The stage's tables as its stacks hold them (docs/operations.md, "Regions"): one region's
 * `AWS::DynamoDB::Table`s as 1.0.0 made them, several regions' global tables with a replica in
 * each, the 1.0.0 tables' conversion between the two, and each other region's view of its replicas.
 */
import { ArnFormat, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  Billing,
  BillingMode,
  type ITable,
  MultiRegionConsistency,
  StreamViewType,
  Table,
  TableEncryption,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  AUDIT_TABLE,
  type KeyAttribute,
  TABLES,
  type TableDefinition,
} from '../../shared/dynamodb/tables.ts';
import type { StageName } from '../stages.ts';
import { globalTableName, type StageTableSettings } from '../table-settings.ts';
import { AUDIT_STREAM_VIEW } from './audit-events.ts';
import { appendOnlyPolicy } from './audit-table.ts';
import { stageKeyAlias } from './stage-key.ts';

const ATTRIBUTE_TYPES: Readonly<Record<KeyAttribute['type'], AttributeType>> = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
};

function attribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: ATTRIBUTE_TYPES[key.type] };
}

/** What {@link createStageTables} builds from. */
export interface StageTablesProps {
  /** The stage. */
  readonly stage: StageName;
  /** The stage's regions, the home region first; one (or none: environment-agnostic) by default. */
  readonly regions: readonly string[];
  /** The stage's KMS key of the stack's region. */
  readonly key: IKey;
  /** Production: deletion protection on every table (and replica). */
  readonly production: boolean;
  /** The stage's removal policy (the audit table is always retained). */
  readonly removalPolicy: RemovalPolicy;
  /** The tables' names and conversion step (`tableSettings`). */
  readonly settings: StageTableSettings;
}

/** The stage's tables in one stack, by definition. */
export interface StageTables {
  /** What the stack's functions, alarms and outputs use: the table, or its replica by name. */
  readonly tables: ReadonlyMap<TableDefinition, ITable>;
  /** Whether the stack owns the tables (so the audit pipe can read the audit table's stream). */
  readonly owned: boolean;
}

/**
 * The stage's tables of `TABLES` in `stack`, at the stack's scope under their construct ids (so
 * that their logical ids never change):
 * - one region, no conversion (or `retain`): an `AWS::DynamoDB::Table` each, on demand, PITR, the
 *   GSIs and TTL, the stage key, as 1.0.0 made them (`retain`: DeletionPolicy Retain);
 * - several regions, in the home region: a `TableV2` (`AWS::DynamoDB::GlobalTable`) each, named
 *   `settings.names` or {@link globalTableName}, with a replica in every other region
 *   (multi-Region eventual consistency), PITR and deletion protection (production) on each
 *   replica, each encrypted with the stage key of its region (by its alias ARN, as
 *   `KMSMasterKeyId` accepts), streams NEW_AND_OLD_IMAGES (what replicas need);
 * - several regions, in another region: the replicas by name, ARNs in the stack's region;
 * - `detach`: the 1.0.0 tables by name alone; `import`: those and, for `cdk import`, a global
 *   table each with what the 1.0.0 table had (name, keys, GSIs, TTL, key, PITR, deletion
 *   protection; the audit table's stream NEW_AND_OLD_IMAGES, as switched before), Retain.
 */
export function createStageTables(stack: Stack, props: StageTablesProps): StageTables {
  const { settings, regions } = props;
  const home = regions.length <= 1 || stack.region === regions[0];
  const name = (definition: TableDefinition) =>
    settings.names?.[definition.constructId] ?? globalTableName(props.stage, definition);
  const byName = (definition: TableDefinition) =>
    TableV2.fromTableAttributes(stack, `${definition.constructId}ByName`, {
      tableName: name(definition),
      encryptionKey: props.key,
      grantIndexPermissions: true,
    });
  const conversion = settings.conversion;
  if (!home || conversion === 'detach' || conversion === 'import') {
    if (conversion === 'import') {
      for (const definition of TABLES) globalTable(stack, definition, props, [], name(definition));
    }
    return { tables: new Map(TABLES.map((d) => [d, byName(d)])), owned: false };
  }
  const tables = TABLES.map((definition): [TableDefinition, ITable] => [
    definition,
    regions.length > 1
      ? globalTable(stack, definition, props, regions.slice(1), name(definition))
      : regionalTable(stack, definition, props),
  ]);
  return { tables: new Map(tables), owned: true };
}

/** The removal policy of `definition`'s table: the audit table and a conversion's always Retain. */
function removalPolicyOf(definition: TableDefinition, props: StageTablesProps): RemovalPolicy {
  return definition.alwaysRetained || props.settings.conversion !== undefined
    ? RemovalPolicy.RETAIN
    : props.removalPolicy;
}

/** A one-region table, `AWS::DynamoDB::Table`, as 1.0.0 made it. */
function regionalTable(stack: Stack, definition: TableDefinition, props: StageTablesProps): Table {
  const table = new Table(stack, definition.constructId, {
    partitionKey: attribute(definition.partitionKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    encryption: TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: props.key,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: definition.timeToLiveAttribute,
    stream: definition.streamNewImages ? AUDIT_STREAM_VIEW : undefined,
    deletionProtection: props.production || definition.alwaysRetained === true,
    removalPolicy: removalPolicyOf(definition, props),
    resourcePolicy: definition === AUDIT_TABLE ? appendOnlyPolicy() : undefined,
  });
  for (const index of definition.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      sortKey: index.sortKey && attribute(index.sortKey),
    });
  }
  return table;
}

/**
 * The ARN of the stage key's alias in `region` (`arn:<partition>:kms:<region>:<account>:alias/
 * petstore-<stage>`): a replica's `KMSMasterKeyId` and a secret replica's `KmsKeyId`.
 */
export function stageKeyAliasArn(stack: Stack, stage: StageName, region: string): string {
  return stack.formatArn({
    service: 'kms',
    region,
    resource: stageKeyAlias(stage),
    arnFormat: ArnFormat.NO_RESOURCE_NAME,
  });
}

/** A global table, `AWS::DynamoDB::GlobalTable`, with a replica in each of `replicaRegions`. */
function globalTable(
  stack: Stack,
  definition: TableDefinition,
  props: StageTablesProps,
  replicaRegions: readonly string[],
  tableName: string,
): TableV2 {
  const audit = definition === AUDIT_TABLE;
  return new TableV2(stack, definition.constructId, {
    tableName,
    partitionKey: attribute(definition.partitionKey),
    billing: Billing.onDemand(),
    encryption: TableEncryptionV2.customerManagedKey(
      props.key,
      Object.fromEntries(
        replicaRegions.map((region) => [region, stageKeyAliasArn(stack, props.stage, region)]),
      ),
    ),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: definition.timeToLiveAttribute,
    // Replicas need NEW_AND_OLD_IMAGES, which TableV2 then sets on every table; the audit table's
    // stream is switched to it by hand before the import (docs/operations.md).
    dynamoStream:
      replicaRegions.length === 0 && definition.streamNewImages
        ? StreamViewType.NEW_AND_OLD_IMAGES
        : undefined,
    deletionProtection: props.production || definition.alwaysRetained === true,
    removalPolicy: removalPolicyOf(definition, props),
    resourcePolicy: audit ? appendOnlyPolicy() : undefined,
    multiRegionConsistency: replicaRegions.length ? MultiRegionConsistency.EVENTUAL : undefined,
    replicas: replicaRegions.map((region) => ({
      region,
      resourcePolicy: audit ? appendOnlyPolicy() : undefined,
    })),
    globalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      sortKey: index.sortKey && attribute(index.sortKey),
    })),
  });
}
