import { describe, expect, it } from 'vitest';
import { everyKey } from '../../support/every-key.ts';
import { keys, keysCommand } from '../../support/keys-command.ts';

describe('keys command on the local stack: scopes', () => {
  it('issues a key with every scope when no --scope is given, and says so', async () => {
    const { code, stdout, token } = await keysCommand(['create', '--plan', 'free']);

    expect(code).toBe(0);
    expect((await keys.findByToken(token))?.scopes).toEqual(['pets:read', 'pets:write']);
    expect(stdout).toContain('  scopes:  pets:read,pets:write');
  });

  it.each([
    [['--scope', 'pets:read'], ['pets:read']],
    [
      ['--scope', 'pets:read', '--scope', 'pets:write'],
      ['pets:read', 'pets:write'],
    ],
    [
      ['--scope', 'pets:write,pets:read'],
      ['pets:read', 'pets:write'],
    ],
    [
      ['--scope', 'pets:write'],
      ['pets:read', 'pets:write'],
    ],
  ])('issues a key with %j as the scopes %j', async (options, scopes) => {
    const { code, token } = await keysCommand(['create', '--plan', 'pro', ...options]);

    expect(code).toBe(0);
    expect((await keys.findByToken(token))?.scopes).toEqual(scopes);
  });

  it('sets the scopes of every token of a rolled key, and says when requests see it', async () => {
    const { token, stdout: created } = await keysCommand(['create', '--plan', 'pro']);
    const keyId = created[0]?.split(' ')[2] ?? '';
    const rolled = await keysCommand(['roll', keyId]);

    const { code, stdout } = await keysCommand(['set-scope', keyId, '--scope', 'pets:read']);

    expect(code).toBe(0);
    expect(stdout).toContain('  scopes: pets:read,pets:write -> pets:read');
    expect(stdout.at(-1)).toMatch(/within 60 s/);
    for (const each of [token, rolled.token]) {
      expect((await keys.findByToken(each))?.scopes).toEqual(['pets:read']);
    }
    const again = await keysCommand(['roll', keyId]);
    expect((await keys.findByToken(again.token))?.scopes).toEqual(['pets:read']);
  });

  it.each([
    [['create', '--plan', 'free', '--scope', 'pets:delete'], 'Unknown scope "pets:delete"'],
    [['create', '--plan', 'free', '--scope', 'pets:read,'], 'Unknown scope ""'],
    [['set-scope', 'key_0000000000000000', '--scope', 'admin'], 'Unknown scope "admin"'],
    [['set-scope', 'key_0000000000000000'], 'set-scope needs --scope pets:read|pets:write.'],
  ])('refuses %j as a usage error naming the valid scopes', async (args, message) => {
    const before = await everyKey(keys);

    const { code, stderr } = await keysCommand(args);

    expect(code).toBe(2);
    expect(stderr[0]).toContain(message);
    if (message.startsWith('Unknown')) expect(stderr[0]).toContain('use pets:read, pets:write.');
    expect(await everyKey(keys)).toEqual(before);
  });

  it('answers exit status 1 for set-scope on an unknown key', async () => {
    const { code, stderr } = await keysCommand([
      'set-scope',
      'key_0000000000000000',
      '--scope',
      'pets:read',
    ]);

    expect(code).toBe(1);
    expect(stderr[0]).toMatch(/key_0000000000000000/);
  });
});
