import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CURSOR_KEY_FILE, localCursorKey } from '../../infra/local/cursor-key.ts';
import { LocalStackError } from '../../infra/local/errors.ts';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'petstore-cursor-key-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('localCursorKey', () => {
  it('creates a 256-bit key readable by its owner only, on first start', () => {
    const key = localCursorKey(directory);

    const path = join(directory, CURSOR_KEY_FILE);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(path, 'utf8')).toBe(key);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('gives the same key on the next start, so cursors outlive a restart', () => {
    const first = localCursorKey(directory);

    expect(localCursorKey(directory)).toBe(first);
  });

  it('refuses a kept key shorter than 32 characters and says how to get a new one', () => {
    writeFileSync(join(directory, CURSOR_KEY_FILE), 'short');

    expect(() => localCursorKey(directory)).toThrow(LocalStackError);
    expect(() => localCursorKey(directory)).toThrow('delete it to have a new one generated');
  });
});
