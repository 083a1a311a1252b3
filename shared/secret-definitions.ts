/**
 * The service's secrets. The stack creates each one that an operation names (its `secrets` in
 * operations.ts), grants it to that function alone and hands it its ARN; the local stack, which
 * has no Secrets Manager, hands it the value itself. Read by secrets.ts.
 */
import { CURSOR_KEY_MIN_LENGTH } from './pets/cursor-key.ts';
import type { SettingName } from './settings.ts';

/** A secret of the service, one per stage. */
export interface SecretDefinition {
  /** Construct id in the stack (a contract: changing it replaces the secret and its value). */
  readonly constructId: string;
  /** What it holds: its description in Secrets Manager. */
  readonly description: string;
  /** Setting through which a deployed function that reads it receives its ARN. */
  readonly arnSetting: SettingName;
  /** Setting holding the value itself on the local stack and in tests. */
  readonly localSetting: SettingName;
  /** File in the local stack's directory (`.petstore/`) that keeps the value across restarts. */
  readonly localFile: string;
  /** Shortest value its reader accepts, in characters. */
  readonly minLength: number;
  /** Why it is never rotated: the acknowledgement of cdk-nag's AwsSolutions-SMG4. */
  readonly withoutRotation: string;
}

/** The HMAC key of listPets's cursors (shared/pets/cursor.ts). */
export const CURSOR_KEY_SECRET: SecretDefinition = {
  constructId: 'CursorKeySecret',
  description: 'HMAC key of the listPets cursors',
  arnSetting: 'CURSOR_KEY_SECRET_ARN',
  localSetting: 'CURSOR_KEY',
  localFile: 'cursor-key',
  minLength: CURSOR_KEY_MIN_LENGTH,
  withoutRotation:
    'The key only signs paging positions (an id and a status filter, no secret data); a rotation would turn every cursor clients hold into a 400. A suspected leak is handled by replacing the value by hand (containers pick it up within the hour).',
};
