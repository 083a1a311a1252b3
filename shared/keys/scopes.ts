/** The scopes of API keys (docs/api.md, "Scopes"): what a key may call. */
import { InvalidScopesError } from './key-errors.ts';

/** Every scope, in the order keys show them. */
export const SCOPES = ['pets:read', 'pets:write'] as const;

export type Scope = (typeof SCOPES)[number];

/** The scopes each scope includes besides itself: writing includes reading (docs/api.md). */
const INCLUDED: Readonly<Record<Scope, readonly Scope[]>> = {
  'pets:read': [],
  'pets:write': ['pets:read'],
};

/** The scope an `insufficient_scope` refusal names: the only one a refused key can lack. */
export const REFUSED_SCOPE: Scope = 'pets:write';

export function isScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}

/** A key's scopes as stored: with those they include, in `SCOPES` order. @throws InvalidScopesError: none. */
export function keyScopes(scopes: readonly Scope[]): Scope[] {
  if (scopes.length === 0)
    throw new InvalidScopesError(`a key needs a scope: ${SCOPES.join(', ')}`);
  const granted = new Set(scopes.flatMap((scope) => [scope, ...INCLUDED[scope]]));
  return SCOPES.filter((scope) => granted.has(scope));
}
