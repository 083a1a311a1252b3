/** The keys table read whole: the admin API's list of keys. */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type ApiKeyRecord, type ListedKey, listedKeys } from '../keys/key-records.ts';
import { isHead } from './key-conditions.ts';

/** Every key of `tableName`, by strongly consistent Scan pages, heads skipped. */
export async function scanKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<ListedKey[]> {
  const rows: ApiKeyRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }),
    );
    const items = page.Items ?? [];
    rows.push(...(items.filter((item) => !isHead(item)) as ApiKeyRecord[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return listedKeys(rows);
}
