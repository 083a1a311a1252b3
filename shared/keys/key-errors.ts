/** Errors of the key stores (the keys command reports them). */

/** A key changed while a command was changing it (a concurrent roll or revocation). */
export class KeyChangedError extends Error {
  override readonly name = 'KeyChangedError';

  constructor(keyId: string, options?: ErrorOptions) {
    super(`Key ${keyId} changed meanwhile; nothing was changed: try again.`, options);
  }
}

/**
 * A revoked key cannot be changed this way: it is not rolled, and it keeps its plan.
 * @param options.revokedAt ISO 8601. @param options.rule @default 'a revoked key is not rolled'
 */
export class KeyRevokedError extends Error {
  override readonly name = 'KeyRevokedError';

  constructor(
    keyId: string,
    options: ErrorOptions & { readonly revokedAt?: string; readonly rule?: string } = {},
  ) {
    const at = options.revokedAt ? ` at ${options.revokedAt}` : '';
    super(
      `Key ${keyId} was revoked${at}; ${options.rule ?? 'a revoked key is not rolled'}.`,
      options,
    );
  }
}

/** Scopes a key cannot hold: none at all (the admin API's 400 `invalid_body`). */
export class InvalidScopesError extends Error {
  override readonly name = 'InvalidScopesError';
}

/** No key has the id asked for (the admin API's 404 `key_not_found`). */
export class KeyNotFoundError extends Error {
  override readonly name = 'KeyNotFoundError';

  constructor(keyId: string) {
    super(`No key ${keyId}.`);
  }
}

/** API Gateway failed a step of a key change: the steps before it undone, the keys table unchanged (503). */
export class ApiGatewayStepError extends Error {
  override readonly name = 'ApiGatewayStepError';
}

/** An account holds its most active keys: a create would pass the limit (HTTP 409). */
export class KeyLimitReachedError extends Error {
  override readonly name = 'KeyLimitReachedError';

  /** @param max The most active keys an account may hold. */
  constructor(max: number, options?: ErrorOptions) {
    super(`The account holds ${max} active keys, the most it may; revoke one first.`, options);
  }
}

/** A `cursor` of a list of keys or audit entries that this service did not issue (HTTP 400). */
export class InvalidListCursorError extends Error {
  override readonly name = 'InvalidListCursorError';

  constructor() {
    super('cursor: is not a cursor this service issued; follow the Link header');
  }
}
