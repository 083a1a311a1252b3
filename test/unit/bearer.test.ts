import { describe, expect, it } from 'vitest';
import { authorizationHeader, bearerToken } from '../../shared/http/bearer.ts';

const TOKEN = 'tok_AbC-123_xyz';

describe('bearerToken', () => {
  it('returns the token of a Bearer header', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
  });

  it('accepts the scheme in any case', () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      expect(bearerToken(`${scheme} ${TOKEN}`)).toBe(TOKEN);
    }
  });

  it('accepts several spaces after the scheme and trailing spaces', () => {
    expect(bearerToken(`Bearer   ${TOKEN}  `)).toBe(TOKEN);
  });

  it('accepts every token68 character, with trailing = padding', () => {
    const token = 'aZ09-._~+/==';
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
  });

  it('returns undefined when the header is missing or empty', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
  });

  it('returns undefined for another scheme', () => {
    expect(bearerToken(`Basic ${TOKEN}`)).toBeUndefined();
    expect(bearerToken(`Token ${TOKEN}`)).toBeUndefined();
    expect(bearerToken(`Bearerx ${TOKEN}`)).toBeUndefined();
  });

  it('returns undefined for a token without scheme, or a scheme without token', () => {
    expect(bearerToken(TOKEN)).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
  });

  it('returns undefined when the token has characters outside token68 or two parts', () => {
    expect(bearerToken('Bearer abc def')).toBeUndefined();
    expect(bearerToken('Bearer abc,def')).toBeUndefined();
    expect(bearerToken('Bearer =abc')).toBeUndefined();
    expect(bearerToken(`Bearer ${TOKEN}\nX-Injected: 1`)).toBeUndefined();
  });
});

describe('authorizationHeader', () => {
  it('finds the header whatever the case of its name', () => {
    for (const name of ['Authorization', 'authorization', 'AUTHORIZATION']) {
      expect(authorizationHeader({ Host: 'example.com', [name]: `Bearer ${TOKEN}` })).toBe(
        `Bearer ${TOKEN}`,
      );
    }
  });

  it('returns undefined when the header map is null, undefined or lacks the header', () => {
    expect(authorizationHeader(null)).toBeUndefined();
    expect(authorizationHeader(undefined)).toBeUndefined();
    expect(authorizationHeader({ 'X-Authorization': `Bearer ${TOKEN}` })).toBeUndefined();
  });
});
