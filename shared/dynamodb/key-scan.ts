/** The keys table a page at a time: every key (Scan of the heads) or an owner's (`OwnerKeys`). */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import type { KeysPage, KeysPageQuery } from '../keys/admin-ports.ts';
import { InvalidListCursorError } from '../keys/key-errors.ts';
import { type ApiKeyRecord, type ListedKey, listedKeys } from '../keys/key-records.ts';
import { decodePosition, encodePosition, orderedPage } from '../paging.ts';
import type { KeyHead } from './key-conditions.ts';
import { OWNER_KEYS_INDEX } from './tables.ts';

const BATCH_SIZE = 100;

/**
 * A page of every key in the table's (hash) order, which a walk keeps: strongly consistent Scan
 * calls of `2 × (limit + 1)` items with the heads kept, until `limit + 1` heads or the end, then
 * BatchGetItem of the rows they name. The cursor is the page's last key id.
 * @param reread A key's tokens read again, for a head whose rows a roll replaced meanwhile.
 * @throws InvalidListCursorError for a cursor this function did not give.
 */
export async function keysPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  query: KeysPageQuery,
  reread: (keyId: string) => Promise<{ current: ApiKeyRecord; old?: ApiKeyRecord } | undefined>,
): Promise<KeysPage> {
  const after = query.cursor === undefined ? undefined : decodePosition(query.cursor);
  if (query.cursor !== undefined && after?.sort !== '') throw new InvalidListCursorError();
  const heads: KeyHead[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined = after && { keyHash: after.id };
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey,
        Limit: 2 * (query.limit + 1),
        FilterExpression: 'attribute_exists(currentHash)',
        ConsistentRead: true,
      }),
    );
    heads.push(...((page.Items ?? []) as KeyHead[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && heads.length <= query.limit);
  const onPage = heads.slice(0, query.limit);
  const rows = await rowsOf(client, tableName, onPage);
  const keys: ListedKey[] = [];
  for (const head of onPage) {
    const current = rows.get(head.currentHash);
    const old = head.rolledOutHash === undefined ? undefined : rows.get(head.rolledOutHash);
    const tokens =
      current && (head.rolledOutHash === undefined || old)
        ? { current, old }
        : await reread(head.keyHash);
    if (tokens) keys.push(...listedKeys([tokens.current, ...(tokens.old ? [tokens.old] : [])]));
  }
  const last = onPage.at(-1);
  return {
    keys,
    ...(heads.length > query.limit &&
      last && { cursor: encodePosition({ sort: '', id: last.keyHash }) }),
  };
}

/**
 * A page of `owner`'s keys, oldest first (by `createdAt`, then key id): Query calls of the
 * `OwnerKeys` index (eventually consistent, about a second behind) of `2 × (limit + 1)` rows, until
 * the page is known (`orderedPage`). The cursor is the page's last key's creation time and id.
 * @throws InvalidListCursorError for a cursor this function did not give.
 */
export async function ownerKeysPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  owner: string,
  query: KeysPageQuery,
): Promise<KeysPage> {
  const after = query.cursor === undefined ? undefined : decodePosition(query.cursor);
  if (query.cursor !== undefined && !after?.sort) throw new InvalidListCursorError();
  async function* rows() {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: OWNER_KEYS_INDEX,
          KeyConditionExpression: after
            ? '#owner = :owner AND createdAt >= :from'
            : '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ...(after && { ':from': after.sort }) },
          Limit: 2 * (query.limit + 1),
          ExclusiveStartKey,
        }),
      );
      yield (page.Items ?? []) as ApiKeyRecord[];
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  const page = await orderedPage(
    rows(),
    (row) => ({ sort: row.createdAt, id: row.keyId }),
    query.limit,
    after,
  );
  return {
    keys: listedKeys(page.items),
    ...(page.next && { cursor: encodePosition(page.next) }),
  };
}

/** The rows the heads name, by hash: BatchGetItem, strongly consistent, 100 keys a call. */
async function rowsOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  heads: readonly KeyHead[],
): Promise<Map<string, ApiKeyRecord>> {
  const hashes = heads.flatMap((head) => [
    head.currentHash,
    ...(head.rolledOutHash === undefined ? [] : [head.rolledOutHash]),
  ]);
  const rows = new Map<string, ApiKeyRecord>();
  for (let start = 0; start < hashes.length; start += BATCH_SIZE) {
    let keys = hashes.slice(start, start + BATCH_SIZE).map((keyHash) => ({ keyHash }));
    while (keys.length > 0) {
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } },
        }),
      );
      for (const row of (Responses?.[tableName] ?? []) as ApiKeyRecord[])
        rows.set(row.keyHash, row);
      keys = (UnprocessedKeys?.[tableName]?.Keys ?? []) as { keyHash: string }[];
    }
  }
  return rows;
}
