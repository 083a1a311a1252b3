/**
 * The service's secrets: the stack grants each to the functions whose operation names it, and hands
 * them its ARN; the local stack hands them the value itself.
 */
import { CURSOR_KEY_MIN_LENGTH } from './pets/cursor-key.ts';
import type { SettingName } from './settings.ts';

/** A secret of the service, one per stage. */
export interface SecretDefinition {
  /** Construct id in the stack (a contract: changing it replaces the secret and its value). */
  readonly constructId: string;
  /** Its description in Secrets Manager. */
  readonly description: string;
  /** The setting of its ARN (deployed). */
  readonly arnSetting: SettingName;
  /** The setting of its value (local stack, tests). */
  readonly localSetting: SettingName;
  /** Its file in `.petstore/`, which keeps the value across restarts. */
  readonly localFile: string;
  /** In characters. */
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
