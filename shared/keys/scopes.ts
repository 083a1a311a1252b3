/**
 * The scopes of API keys (docs/api.md, "Scopes"): what a key may call. Each route of
 * `infra/routes.ts` names the scope it needs; the authorizer allows a key exactly the routes its
 * scopes cover.
 */

/** Every scope, in the order keys show them. */
export const SCOPES = ['pets:read', 'pets:write'] as const;

/** A scope: `pets:read` (listPets, getPet) or `pets:write` (createPet). */
export type Scope = (typeof SCOPES)[number];

/**
 * The scopes each scope includes besides itself: writing includes reading, as Stripe's and
 * GitHub's write permissions do. So a key has `pets:read` alone or both, and the one scope a
 * refused key can lack is `pets:write`, which a gateway response (static) can name.
 */
const INCLUDED: Readonly<Record<Scope, readonly Scope[]>> = {
  'pets:read': [],
  'pets:write': ['pets:read'],
};

/**
 * The scope that an `insufficient_scope` refusal names in `WWW-Authenticate`: the one a key
 * lacks whenever its scopes do not cover a route (a key without it has `pets:read` alone).
 */
export const REFUSED_SCOPE: Scope = 'pets:write';

/** Whether `name` is a scope. */
export function isScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}

/**
 * A key's scopes as stored: the given ones with those they include, in `SCOPES` order, without
 * repeats.
 *
 * @throws RangeError for no scope at all: a key has at least one.
 */
export function keyScopes(scopes: readonly Scope[]): Scope[] {
  if (scopes.length === 0) throw new RangeError(`a key needs a scope: ${SCOPES.join(', ')}`);
  const granted = new Set(scopes.flatMap((scope) => [scope, ...INCLUDED[scope]]));
  return SCOPES.filter((scope) => granted.has(scope));
}
