/** Errors of the developer portal's accounts; `shared/http/error-mapping.ts` answers them. */

/** An ID token that is missing, malformed, expired, or of another pool, issuer or client (401). */
export class InvalidIdTokenError extends Error {
  override readonly name = 'InvalidIdTokenError';
  /** The answer's `WWW-Authenticate` (RFC 6750): a bearer token is what to send. */
  readonly challenge = 'Bearer';

  constructor(options?: ErrorOptions) {
    super('Sign in again: the ID token is missing, invalid or expired.', options);
  }
}

/** An account whose email is not verified yet asked for a key (403). */
export class EmailNotVerifiedError extends Error {
  override readonly name = 'EmailNotVerifiedError';

  constructor() {
    super('Verify your email before you create a key.');
  }
}
