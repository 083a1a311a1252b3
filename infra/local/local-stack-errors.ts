/**
 * Errors of the local stack that a user fixes by themselves: the message is the one line to print.
 */
import type { SettingName } from '../../shared/settings.ts';

/** A missing prerequisite or a conflict on this machine; `message` says what to do. */
export class LocalStackError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalStackError';
  }
}

/**
 * A TCP port that the local stack needs is taken by another process.
 *
 * @param port The port number.
 * @param service What wanted it, e.g. `DynamoDB Local`.
 * @param envVar The environment variable that picks another port, e.g. `DYNAMODB_PORT`.
 */
export class PortInUseError extends LocalStackError {
  constructor(
    readonly port: number,
    service: string,
    envVar: SettingName,
  ) {
    super(`Port ${port} is already in use (${service}); free it or set ${envVar} to another port.`);
    this.name = 'PortInUseError';
  }
}
