import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { STAGES } from '../../infra/stages.ts';
import {
  generateToken,
  hashToken,
  inspectToken,
  mayBeKeyOf,
  TOKEN_PATTERN,
  TOKEN_PREFIXES,
  type TokenStage,
  tokenStageOf,
} from '../../shared/keys/token.ts';

const TOKEN_STAGES = Object.keys(TOKEN_PREFIXES) as TokenStage[];

/** A token with one character of its random part replaced, so that its checksum is wrong. */
function withTypo(token: string): string {
  const at = token.length - 10;
  return `${token.slice(0, at)}${token[at] === 'a' ? 'b' : 'a'}${token.slice(at + 1)}`;
}

describe('hashToken', () => {
  it('is the SHA-256 of the token in lower-case hex', () => {
    // FIPS 180-2 test vector for "abc".
    expect(hashToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('hashes the UTF-8 bytes of the token', () => {
    // printf 'é' | sha256sum (bytes c3 a9)
    expect(hashToken('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});

describe('generateToken', () => {
  it.each(TOKEN_STAGES)(
    'issues a %s token: its prefix, 32 random and 6 checksum base62 characters',
    (stage) => {
      const token = generateToken(stage);

      expect(token).toMatch(new RegExp(`^${TOKEN_PREFIXES[stage]}[0-9A-Za-z]{38}$`));
      expect(token).toMatch(TOKEN_PATTERN);
      expect(inspectToken(token)).toEqual({ kind: 'current', stage });
    },
  );

  it('gives every deployed stage a prefix of its own', () => {
    const prefixes = new Set([...STAGES, 'local' as const].map((stage) => TOKEN_PREFIXES[stage]));
    expect(prefixes.size).toBe(STAGES.length + 1);
  });

  it('never returns the same token twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken()));
    expect(tokens.size).toBe(1000);
  });
});

describe('inspectToken', () => {
  it('computes the checksum as CRC32 of the random part in base62', () => {
    // CRC32 of 32 ASCII zeros: 0xa0f292d0 = 2700251856 = 2wjyrI in base62 (Python's zlib agrees)
    expect(inspectToken(`pet_stg_${'0'.repeat(32)}2wjyrI`)).toEqual({
      kind: 'current',
      stage: 'staging',
    });
  });

  it.each([
    ['a wrong checksum', withTypo(generateToken('production')), 'wrong checksum'],
    ['another prefix', `ghp_${'a'.repeat(36)}`, 'no Petstore token prefix'],
    ['a short random part', generateToken().slice(0, -1), 'not 38 base62 characters'],
    ['a character outside base62', `${generateToken().slice(0, -1)}-`, 'not 38 base62 characters'],
  ])('calls a token with %s malformed', (_, token, reason) => {
    expect(inspectToken(token)).toEqual({
      kind: 'malformed',
      reason: expect.stringContaining(reason),
    });
  });
});

describe('TOKEN_PATTERN', () => {
  it('is the regular expression the README gives secret scanners', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\n${TOKEN_PATTERN.source}\n`);
  });

  it('finds a token in a line of text, and not a token with a longer body', () => {
    const token = generateToken('production');
    expect(`export API_KEY=${token} # prod`.match(TOKEN_PATTERN)?.[0]).toBe(token);
    expect(TOKEN_PATTERN.test(`${token}x`)).toBe(false);
  });
});

describe('mayBeKeyOf', () => {
  it('lets through a token of the stage, and nothing else', () => {
    expect(mayBeKeyOf(generateToken('staging'), 'staging')).toBe(true);
    expect(mayBeKeyOf(generateToken('staging'), 'production')).toBe(false);
    expect(mayBeKeyOf(generateToken('local'), 'staging')).toBe(false);
    expect(mayBeKeyOf(withTypo(generateToken('local')), 'local')).toBe(false);
  });
});

describe('tokenStageOf', () => {
  it('maps PETSTORE_STAGE to the stage of the tokens it accepts', () => {
    expect(tokenStageOf('staging')).toBe('staging');
    expect(tokenStageOf('production')).toBe('production');
    expect(tokenStageOf('local')).toBe('local');
    expect(tokenStageOf('anything else')).toBe('local');
  });
});
