/** Every key of a key store or service, page after page (`listKeys` gives a page at a time). */
import type { KeysPage, KeysPageQuery } from '../../shared/keys/admin-ports.ts';

/** Every key `lister` lists, in the table's order, walked 100 a page. */
export async function everyKey<Key>(lister: {
  listKeys(query: KeysPageQuery): Promise<KeysPage<Key>>;
}): Promise<Key[]> {
  const keys: Key[] = [];
  let cursor: string | undefined;
  do {
    const page = await lister.listKeys({ limit: 100, cursor });
    keys.push(...page.keys);
    cursor = page.cursor;
  } while (cursor);
  return keys;
}
