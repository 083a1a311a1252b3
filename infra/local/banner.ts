/**
 * The local stack's banner: the keys `npm start` issues for a fresh store, and the lines it prints
 * (docs/local-stack.md, "npm start").
 */
import { createContainer } from '../../shared/dynamodb/container.ts';
import type { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { PLAN_IDS } from '../../shared/plans.ts';

/** A key issued with its token, shown once. */
export type IssuedKey = Awaited<ReturnType<DynamoDBKeyStore['createKey']>>;

/** One key per plan when the keys table is empty (a fresh store), else none. */
export async function issueKeysForEmptyStore(): Promise<IssuedKey[]> {
  const keys = createContainer().keys;
  if ((await keys.listKeys()).length > 0) return [];
  const issued: IssuedKey[] = [];
  for (const plan of PLAN_IDS) issued.push(await keys.createKey({ plan, owner: 'npm start' }));
  return issued;
}

/**
 * Prints the banner: `first` (where the API and its data are), the keys issued, how to issue one
 * and try it on `url`, and what Ctrl-C stops.
 */
export function printBanner(
  url: string,
  first: string[],
  issued: IssuedKey[],
  alsoStops: string,
): void {
  const lines = [...first];
  if (issued.length > 0) {
    lines.push('Keys issued for this new store (shown once; only their SHA-256 is kept):');
    for (const { record, token } of issued) {
      lines.push(`  ${record.plan.padEnd(8)} ${record.keyId}  ${token}`);
    }
  }
  lines.push(
    'Issue a key: npm run keys -- create --plan free',
    `Try: curl -H "Authorization: Bearer ${issued[0]?.token ?? '<API_KEY>'}" ${url}/pets`,
    `Ctrl-C stops the API${alsoStops}.`,
  );
  console.log(lines.join('\n'));
}
