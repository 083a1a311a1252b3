/** Errors of the key stores (the keys command reports them). */

/** A key changed while a command was changing it (a concurrent roll or revocation). */
export class KeyChangedError extends Error {
  constructor(keyId: string, options?: ErrorOptions) {
    super(`Key ${keyId} changed meanwhile; nothing was changed: try again.`, options);
    this.name = 'KeyChangedError';
  }
}

/** A revoked key cannot be rolled. */
export class KeyRevokedError extends Error {
  constructor(keyId: string, options?: ErrorOptions) {
    super(`Key ${keyId} was revoked; a revoked key is not rolled.`, options);
    this.name = 'KeyRevokedError';
  }
}
