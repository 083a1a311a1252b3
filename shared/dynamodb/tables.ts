/** The DynamoDB tables, read by the CDK stack and by the local stack (DynamoDB Local). */
import type { TableNameSetting } from '../settings.ts';
import { STATUS_INDEX, STATUS_SHARD_ATTRIBUTE } from './pet-item.ts';

// The runtime reads these names from pet-item.ts, so that no function bundles the definitions.
export { STATUS_INDEX, STATUS_SHARD_ATTRIBUTE };

/** A key attribute: its name and DynamoDB scalar type (S string, N number). */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

/** A GSI, projecting all attributes. */
export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Construct id in the stack (a contract: changing it replaces the table and its data). */
  readonly constructId: string;
  /** The setting of its name. */
  readonly envVar: TableNameSetting;
  /** Its name on DynamoDB Local. */
  readonly localName: string;
  readonly partitionKey: KeyAttribute;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  /** The TTL attribute (epoch seconds). */
  readonly timeToLiveAttribute?: string;
  /** A stream of new images (the audit table's, for infra/constructs/audit-events.ts). @default - none */
  readonly streamNewImages?: boolean;
  /**
   * Protected and retained on every stage (the audit trail outlives a staging stack too).
   * @default - the stage's: kept in production, deleted with a staging stack
   */
  readonly alwaysRetained?: boolean;
}

/** Pets by `id` (number); item 0 holds the pet-id sequence (`value`, the last id leased; no `statusShard`: unlisted). */
export const PETS_TABLE: TableDefinition = {
  constructId: 'PetsTable',
  envVar: 'PETS_TABLE_NAME',
  localName: 'petstore-pets',
  partitionKey: { name: 'id', type: 'N' },
  globalSecondaryIndexes: [
    {
      indexName: STATUS_INDEX,
      partitionKey: { name: STATUS_SHARD_ATTRIBUTE, type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
  ],
};

/**
 * The keys table's index of an owner's keys: partition key `owner`, sort key `createdAt` (ISO
 * 8601); a key's token rows carry both (its head and account items neither), so a rolled key
 * stands in it twice, its rows side by side.
 */
export const OWNER_KEYS_INDEX = 'OwnerKeys';

/**
 * API keys by `keyHash`: a token's row under its SHA-256 (hex), a key's head under its id, an
 * account's active keys under `account#<owner>` (dynamodb/account-items.ts).
 */
export const KEYS_TABLE: TableDefinition = {
  constructId: 'KeysTable',
  envVar: 'KEYS_TABLE_NAME',
  localName: 'petstore-keys',
  partitionKey: { name: 'keyHash', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: OWNER_KEYS_INDEX,
      partitionKey: { name: 'owner', type: 'S' },
      sortKey: { name: 'createdAt', type: 'S' },
    },
  ],
};

/** Counters by `name`: the rate limiter's items (rate-limit/counter-item.ts), TTL `expiresAt`. */
export const COUNTERS_TABLE: TableDefinition = {
  constructId: 'CountersTable',
  envVar: 'COUNTERS_TABLE_NAME',
  localName: 'petstore-counters',
  partitionKey: { name: 'name', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expiresAt',
};

/** createPet's idempotency records by `id` (`<keyId>#<Idempotency-Key>`), expiring after 24 h. */
export const IDEMPOTENCY_TABLE: TableDefinition = {
  constructId: 'IdempotencyTable',
  envVar: 'IDEMPOTENCY_TABLE_NAME',
  localName: 'petstore-idempotency',
  partitionKey: { name: 'id', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expiresAt',
};

/** The audit table's index of a key's entries: partition key `keyId`, sort key `at` (ISO 8601). */
export const KEY_HISTORY_INDEX = 'KeyHistory';

/** The audit table's index by UTC day: partition key `day` (`YYYY-MM-DD`), sort key `at`. */
export const AUDIT_DAY_INDEX = 'AuditByDay';

/**
 * Audit entries by `entryId` (shared/audit/entry.ts), append-only (put if absent; no role may
 * update or delete one), expiring `AUDIT_RETENTION_DAYS` after the change (TTL `expiresAt`).
 */
export const AUDIT_TABLE: TableDefinition = {
  constructId: 'AuditTable',
  envVar: 'AUDIT_TABLE_NAME',
  localName: 'petstore-audit',
  partitionKey: { name: 'entryId', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: KEY_HISTORY_INDEX,
      partitionKey: { name: 'keyId', type: 'S' },
      sortKey: { name: 'at', type: 'S' },
    },
    {
      indexName: AUDIT_DAY_INDEX,
      partitionKey: { name: 'day', type: 'S' },
      sortKey: { name: 'at', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
  alwaysRetained: true,
  streamNewImages: true,
};

export const TABLES: readonly TableDefinition[] = [
  PETS_TABLE,
  KEYS_TABLE,
  COUNTERS_TABLE,
  IDEMPOTENCY_TABLE,
  AUDIT_TABLE,
];
