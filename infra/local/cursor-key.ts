/**
 * The local stack's cursor key (see shared/pets/cursor.ts): deployed, each stage has its own in
 * Secrets Manager; locally `npm start` generates one on first start and keeps it beside the data,
 * so that cursors stay valid across restarts, as the data does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURSOR_KEY_MIN_LENGTH } from '../../shared/pets/cursor.ts';
import { LocalStackError } from './errors.ts';

/** File name of the key in the local state directory. */
export const CURSOR_KEY_FILE = 'cursor-key';

/** A new random key: 256 bits as base64url (43 characters). */
export function newCursorKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The key kept in `directory`, created there (mode 0600, readable by its owner only) when absent.
 *
 * @param directory The local state directory (`.petstore/`); it must exist.
 * @throws LocalStackError when the file holds a key shorter than `CURSOR_KEY_MIN_LENGTH`.
 */
export function localCursorKey(directory: string): string {
  const path = join(directory, CURSOR_KEY_FILE);
  try {
    writeFileSync(path, newCursorKey(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = readFileSync(path, 'utf8').trim();
  if (key.length < CURSOR_KEY_MIN_LENGTH) {
    throw new LocalStackError(
      `${path} must hold a cursor key of at least ${CURSOR_KEY_MIN_LENGTH} characters; delete it to have a new one generated.`,
    );
  }
  return key;
}
