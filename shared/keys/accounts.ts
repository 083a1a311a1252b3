/** Accounts of the portal's user pool as keys know them (docs/architecture.md, "The key service"). */
import type { Actor } from '../audit/entry.ts';

const ACCOUNT_OWNER_PREFIX = 'cognito:';

/** The owner (and actor id) of the account whose user-pool `sub` is `sub`: `cognito:<sub>`. */
export function accountOwner(sub: string): string {
  return `${ACCOUNT_OWNER_PREFIX}${sub}`;
}

/** Whether a key's `owner` is an account of the user pool, whose active keys are kept count of. */
export function isAccountOwner(owner: string | undefined): owner is string {
  return owner?.startsWith(ACCOUNT_OWNER_PREFIX) === true;
}

/** The owner whose keys alone `actor` may see and change: an account's own; none for others. */
export function ownerScopeOf(actor: Actor): string | undefined {
  return actor.type === 'account' ? actor.id : undefined;
}
