/** Errors of GitHub's secret scanning reports. */

/** GitHub's list of public keys could not be read (HTTP 503: GitHub sends the report again). */
export class PublicKeysUnavailableError extends Error {
  override readonly name = 'PublicKeysUnavailableError';
}
