/** What the portal's handlers answer a key as: `{ key }`, the key as its account sees it now. */
import type { KeyStatus } from '../../../shared/keys/shown-key.ts';
import { portalKey } from '../../../shared/portal/portal-key.ts';

/** `{ key }` of a key with its last day used, when known. */
export function keyAnswer(status: Pick<KeyStatus, 'key' | 'lastUsed'>) {
  return { key: portalKey(status, Date.now()) };
}
