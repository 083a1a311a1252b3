/**
 * The local stack's banner: the keys `npm start` issues for a fresh store (through the key
 * service, each with its `key.created` entry by the actor `local:npm-start`), and the lines it
 * prints (docs/local-stack.md, "npm start").
 */
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { systemAuditContext } from '../../shared/audit/entry.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { PLAN_IDS } from '../../shared/plans.ts';

/** A key issued with its token, shown once. */
export type IssuedKey = Awaited<ReturnType<KeyService['createKey']>>;

/** The actor of the keys `npm start` issues. */
export const NPM_START_ACTOR = 'local:npm-start';

/**
 * One key per plan when the keys table is empty (a fresh store), else none; on the tables of the
 * process's environment, where `npm start` put them.
 */
export async function issueKeysForEmptyStore(): Promise<IssuedKey[]> {
  const keys = createKeyService();
  if ((await keys.listKeys({ limit: 1 })).keys.length > 0) return [];
  const context = systemAuditContext(NPM_START_ACTOR);
  const issued: IssuedKey[] = [];
  for (const plan of PLAN_IDS)
    issued.push(await keys.createKey({ plan, owner: 'npm start' }, context));
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
    for (const { key, token } of issued) {
      lines.push(`  ${key.plan.padEnd(8)} ${key.keyId}  ${token}`);
    }
  }
  lines.push(
    'Issue a key: npm run keys -- create --plan free',
    `Try: curl -H "Authorization: Bearer ${issued[0]?.token ?? '<API_KEY>'}" ${url}/pets`,
    `Ctrl-C stops the API${alsoStops}.`,
  );
  console.log(lines.join('\n'));
}
