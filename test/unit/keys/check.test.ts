import { describe, expect, it } from 'vitest';
import { generateToken } from '../../../shared/keys/token.ts';
import { keysCommand } from '../../support/in-memory-keys-command.ts';

describe('keys command check', () => {
  it.each([
    ['local', generateToken('local')],
    ['staging', generateToken('staging')],
    ['production', generateToken('production')],
  ])('says a %s token is well-formed, of its stage', async (stage, token) => {
    const { code, stdout } = await keysCommand(['check', token]);

    expect(code).toBe(0);
    expect(stdout).toEqual([
      `A well-formed Petstore token of stage ${stage} (prefix and checksum hold).`,
    ]);
  });

  it('says why a string is no Petstore token, with exit status 1, without any table', async () => {
    const token = generateToken('staging');
    const typo = `${token.slice(0, 12)}${token[12] === 'x' ? 'y' : 'x'}${token.slice(13)}`;
    const noTables = {
      adminApiUrl: 'http://127.0.0.1:1/admin',
      credentialsFile: 'none',
      region: 'us-east-1',
    };

    const { code, stderr } = await keysCommand(['check', typo], noTables);

    expect(code).toBe(1);
    expect(stderr).toEqual(['keys: Not a Petstore token: wrong checksum.']);
  });
});
