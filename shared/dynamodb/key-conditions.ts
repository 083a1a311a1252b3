/** The keys table's head items, and the conditions and updates that `DynamoDBKeyStore` builds. */
import type { ApiKeyRecord, KeyTokens, KeyUpdate } from '../keys/key-records.ts';

/** A key's head item, under the key id, naming its tokens' rows (docs/architecture.md). */
export interface KeyHead {
  readonly keyHash: string;
  readonly currentHash: string;
  readonly rolledOutHash?: string;
}

/** Whether a keys-table item is a key's head, not a token's row. */
export function isHead(item: Record<string, unknown>): boolean {
  return 'currentHash' in item;
}

/** The head of a key whose tokens were read as `tokens`: it names their rows. */
export function headOf({ current, old }: KeyTokens): KeyHead {
  return {
    keyHash: current.keyId,
    currentHash: current.keyHash,
    ...(old && { rolledOutHash: old.keyHash }),
  };
}

/** The condition that a key's head still names the rows it named when read, on `tableName`. */
export function headAsRead(tableName: string, { keyHash, currentHash, rolledOutHash }: KeyHead) {
  return {
    TableName: tableName,
    Key: { keyHash },
    ConditionExpression: `currentHash = :current AND ${
      rolledOutHash === undefined ? 'attribute_not_exists(rolledOutHash)' : 'rolledOutHash = :old'
    }`,
    ExpressionAttributeValues: {
      ':current': currentHash,
      ...(rolledOutHash !== undefined && { ':old': rolledOutHash }),
    },
  };
}

/** The update that a change makes on each row of a key. */
export type RowUpdate = {
  UpdateExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** The update of each row of a key, and the attributes it replaces (guarded as read: the entry's `before`). */
export function rowUpdateOf(update: KeyUpdate): {
  readonly row: RowUpdate;
  readonly replaced: readonly (keyof ApiKeyRecord)[];
} {
  switch (update.event) {
    case 'key.plan_changed': {
      const own = update.limits;
      return {
        row: {
          UpdateExpression: own
            ? 'SET #plan = :plan, #perMinute = :perMinute, #perDay = :perDay'
            : 'SET #plan = :plan REMOVE #perMinute, #perDay',
          ExpressionAttributeNames: {
            '#plan': 'plan',
            '#perMinute': 'perMinute',
            '#perDay': 'perDay',
          },
          ExpressionAttributeValues: {
            ':plan': update.plan,
            ...(own && { ':perMinute': own.perMinute, ':perDay': own.perDay }),
          },
        },
        replaced: ['plan', 'perMinute', 'perDay'],
      };
    }
    case 'key.scope_changed':
      return {
        row: {
          UpdateExpression: 'SET #scopes = :scopes',
          ExpressionAttributeNames: { '#scopes': 'scopes' },
          ExpressionAttributeValues: { ':scopes': update.scopes },
        },
        replaced: ['scopes'],
      };
    case 'key.expiry_set':
      return {
        row: update.expiresAt
          ? {
              UpdateExpression: 'SET expiresAt = :at',
              ExpressionAttributeValues: { ':at': update.expiresAt },
            }
          : { UpdateExpression: 'REMOVE expiresAt' },
        replaced: ['expiresAt'],
      };
    case 'key.revoked':
      return {
        // A revoked key keeps its first revocation time.
        row: {
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
          ExpressionAttributeValues: { ':now': update.at },
        },
        replaced: ['revokedAt'],
      };
  }
}

/** Attempts of a change to every row of a key that a concurrent change keeps cancelling. */
export const CHANGE_ATTEMPTS = 3;

/** The key's attributes each of its rows holds (a roll copies them). */
export const KEY_ATTRIBUTES = [
  'plan',
  'perMinute',
  'perDay',
  'owner',
  'scopes',
  'usageIdentifier',
  'createdAt',
  'revokedAt',
  'expiresAt',
] as const satisfies readonly (keyof ApiKeyRecord)[];

/** The condition that a key's current row is still current and holds `unchanged` as read. */
export function stillAsRead(current: ApiKeyRecord, unchanged: readonly (keyof ApiKeyRecord)[]) {
  const held = unchanged.map((name, at) => ({ name, value: current[name], at }));
  const values = Object.fromEntries(
    held.flatMap(({ value, at }) => (value === undefined ? [] : [[`:u${at}`, value]])),
  );
  return {
    ConditionExpression: [
      'attribute_exists(#keyHash) AND attribute_not_exists(#grace)',
      ...held.map(({ value, at }) =>
        value === undefined ? `attribute_not_exists(#u${at})` : `#u${at} = :u${at}`,
      ),
    ].join(' AND '),
    ExpressionAttributeNames: {
      '#keyHash': 'keyHash',
      '#grace': 'graceUntil',
      ...Object.fromEntries(held.map(({ name, at }) => [`#u${at}`, name])),
    },
    ExpressionAttributeValues: values,
  };
}

/** `ExpressionAttributeValues` when there are any: DynamoDB refuses an empty map. */
export function valuesIfAny(values: Record<string, unknown>) {
  return Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {};
}
