/** DynamoDB conditions and updates of the keys table that `DynamoDBKeyStore` builds. */
import type { ApiKeyRecord } from './key-records.ts';

/** The update that `updateEveryRow` makes on each row of a key. */
export type RowUpdate = {
  UpdateExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** Attempts of a change to every row of a key that a concurrent change keeps cancelling. */
export const CHANGE_ATTEMPTS = 3;

/** The attributes of a key that each of its rows holds, and that a roll copies to the new row. */
export const KEY_ATTRIBUTES = [
  'plan',
  'perMinute',
  'perDay',
  'owner',
  'usageIdentifier',
  'createdAt',
  'revokedAt',
  'expiresAt',
] as const satisfies readonly (keyof ApiKeyRecord)[];

/**
 * The condition that a key's current row is still current (no roll since it was read) and still
 * holds `unchanged` as read, with its names (`#keyHash`, `#grace`, `#uN`) and values (`:uN`).
 */
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
