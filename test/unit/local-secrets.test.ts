import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localSecretValue, provideSecrets } from '../../infra/local/local-secrets.ts';
import { LocalStackError } from '../../infra/local/local-stack-errors.ts';
import { ROUTES } from '../../infra/routes.ts';
import { CURSOR_KEY_SECRET } from '../../shared/secret-definitions.ts';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'petstore-secrets-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('localSecretValue', () => {
  it('creates a 256-bit value readable by its owner only, on first start', () => {
    const key = localSecretValue(directory, CURSOR_KEY_SECRET);

    const path = join(directory, 'cursor-key');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(path, 'utf8')).toBe(key);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('gives the same value on the next start, so cursors outlive a restart', () => {
    const first = localSecretValue(directory, CURSOR_KEY_SECRET);

    expect(localSecretValue(directory, CURSOR_KEY_SECRET)).toBe(first);
  });

  it('refuses a kept cursor key shorter than 32 characters and says how to get a new one', () => {
    writeFileSync(join(directory, 'cursor-key'), 'x'.repeat(31));

    expect(() => localSecretValue(directory, CURSOR_KEY_SECRET)).toThrow(LocalStackError);
    expect(() => localSecretValue(directory, CURSOR_KEY_SECRET)).toThrow(
      'delete it to have a new one generated',
    );
  });
});

describe('provideSecrets', () => {
  it("sets the secrets the route table's rows read, each under its local setting", () => {
    const env: NodeJS.ProcessEnv = {};

    provideSecrets(directory, env);

    const read = ROUTES.flatMap((route) => route.secrets ?? []);
    expect(read.map((secret) => secret.localSetting)).toEqual(['CURSOR_KEY']);
    expect(env).toEqual({ CURSOR_KEY: readFileSync(join(directory, 'cursor-key'), 'utf8') });
  });

  it('keeps nothing on disk without a directory (--in-memory), and a value already set', () => {
    const fresh: NodeJS.ProcessEnv = {};
    const set: NodeJS.ProcessEnv = { CURSOR_KEY: 'k'.repeat(40) };

    provideSecrets(undefined, fresh);
    provideSecrets(directory, set);

    expect(fresh.CURSOR_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(set).toEqual({ CURSOR_KEY: 'k'.repeat(40) });
    expect(() => statSync(join(directory, 'cursor-key'))).toThrow();
  });
});
