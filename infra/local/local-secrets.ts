/**
 * The local stack's secrets (shared/secret-definitions.ts): deployed, each stage has its own in Secrets
 * Manager; locally `npm start` generates each on first start and keeps it beside the data, so that
 * what it signs (cursors) stays valid across restarts, as the data does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretDefinition } from '../../shared/secret-definitions.ts';
import { functionSecrets } from '../routes.ts';
import { LocalStackError } from './local-stack-errors.ts';

/** A new random value: 256 bits as base64url (43 characters). */
export function newSecretValue(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The value of `secret` kept in `directory` (its `localFile`), created there (mode 0600, readable
 * by its owner only) when absent.
 *
 * @param directory The local state directory (`.petstore/`); it must exist.
 * @throws LocalStackError when the file holds a value shorter than the secret's `minLength`.
 */
export function localSecretValue(directory: string, secret: SecretDefinition): string {
  const path = join(directory, secret.localFile);
  try {
    writeFileSync(path, newSecretValue(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const value = readFileSync(path, 'utf8').trim();
  if (value.length < secret.minLength) {
    throw new LocalStackError(
      `${path} must hold a value of at least ${secret.minLength} characters; delete it to have a new one generated.`,
    );
  }
  return value;
}

/**
 * Sets each secret that a function reads (`functionSecrets()`) in `env` under its `localSetting`,
 * unless set there already: the value kept in `directory`, or a fresh one without a directory
 * (`--in-memory`, whose data goes with the process).
 *
 * @throws LocalStackError as {@link localSecretValue}.
 */
export function provideSecrets(directory: string | undefined, env = process.env): void {
  for (const secret of functionSecrets()) {
    env[secret.localSetting] ??= directory ? localSecretValue(directory, secret) : newSecretValue();
  }
}
