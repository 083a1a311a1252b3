/**
 * The keys table's account items (`account#<owner>`): a set of the account's active key ids,
 * changed in each create's and revocation's own transaction (docs/architecture.md, "Keys").
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/** No SHA-256 in hex and no key id starts so. */
const ACCOUNT_ITEM_PREFIX = 'account#';

/** The key of the account item of `owner`. */
function accountKey(owner: string) {
  return { keyHash: `${ACCOUNT_ITEM_PREFIX}${owner}` };
}

/** Whether a keys-table item is an account item, neither a key's head nor a token's row. */
export function isAccountItem(item: Record<string, unknown>): boolean {
  return String(item.keyHash).startsWith(ACCOUNT_ITEM_PREFIX);
}

/** Adds `keyId` to `owner`'s active keys; with `max`, only while it holds fewer. */
export function activeKeyAdded(tableName: string, owner: string, keyId: string, max?: number) {
  return {
    Update: {
      TableName: tableName,
      Key: accountKey(owner),
      UpdateExpression: 'ADD activeKeyIds :ids',
      ...(max !== undefined && {
        ConditionExpression: 'attribute_not_exists(activeKeyIds) OR size(activeKeyIds) < :max',
      }),
      ExpressionAttributeValues: {
        ':ids': new Set([keyId]),
        ...(max !== undefined && { ':max': max }),
      },
    },
  };
}

/** The update that takes `keyId` out of the active keys of `owner` (a set: once, however often). */
export function activeKeyRemoved(tableName: string, owner: string, keyId: string) {
  return {
    TableName: tableName,
    Key: accountKey(owner),
    UpdateExpression: 'DELETE activeKeyIds :ids',
    ExpressionAttributeValues: { ':ids': new Set([keyId]) },
  };
}

/** How many active keys `owner` holds, read strongly consistently (0 without an item). */
export async function activeKeyCount(
  client: DynamoDBDocumentClient,
  tableName: string,
  owner: string,
): Promise<number> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: accountKey(owner), ConsistentRead: true }),
  );
  return (Item?.activeKeyIds as Set<string> | undefined)?.size ?? 0;
}
