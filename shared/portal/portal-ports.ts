/**
 * The developer portal's accounts (docs/architecture.md, "The portal API"): who a request's ID
 * token names, the user pool's directory, and the events an account's requests publish.
 */
import type { Actor } from '../audit/entry.ts';
import { accountOwner } from '../keys/accounts.ts';

/** An account of the user pool, as its verified ID token names it. */
export interface PortalAccount {
  /** The user pool's id of the account (`sub`). */
  readonly sub: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

/** Checks a bearer ID token: signature, issuer, audience, `token_use`, expiry. */
export interface IdTokenVerifier {
  /**
   * @throws InvalidIdTokenError for a token that fails any check; StoreUnavailableError when the
   *   pool's keys cannot be read.
   */
  verify(token: string): Promise<PortalAccount>;
}

/** The user pool's accounts, as an account removes itself. */
export interface AccountDirectory {
  /** Removes the account `sub`; one already gone is no error. */
  deleteAccount(sub: string): Promise<void>;
}

/** The actor of `account`'s changes: `account`, `cognito:<sub>`, named by its email. */
export function accountActor(account: PortalAccount): Actor {
  return { type: 'account', id: accountOwner(account.sub), name: account.email };
}

/** What publishes the portal's events, and the one it publishes. */
export const PORTAL_EVENT_SOURCE = 'petstore.portal';
export const UPGRADE_REQUESTED = 'plan.upgrade_requested';
