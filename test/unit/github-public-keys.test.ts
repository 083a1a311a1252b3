/**
 * GitHub's secret scanning keys as the endpoint reads them (shared/secret-scanning/): the list read
 * once and kept, an unknown identifier reading it again at most once a minute on an injected
 * clock, a failed read not kept; a report's signature checked over its bytes with Node's crypto.
 * The list is served over HTTP by bench/github-keys.ts, as GitHub serves it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubKeys, serveGitHubKeys, signature } from '../../bench/github-keys.ts';
import {
  GitHubPublicKeys,
  REFETCH_INTERVAL_MS,
} from '../../shared/secret-scanning/github-public-keys.ts';
import { isSignedBy } from '../../shared/secret-scanning/report-signature.ts';
import { PublicKeysUnavailableError } from '../../shared/secret-scanning/secret-scanning-errors.ts';

let github: GitHubKeys;
beforeAll(async () => {
  github = await serveGitHubKeys();
});
afterAll(() => github?.close());

/** The keys at the served list on a clock the test moves; the reads the list had before. */
function keysAt(start = 0) {
  const clock = { now: start };
  const before = github.reads();
  const keys = GitHubPublicKeys.from(github.url, () => clock.now);
  return { keys, clock, reads: () => github.reads() - before };
}

describe('GitHubPublicKeys', () => {
  it('reads the list once, and finds its keys in it from then on', async () => {
    const { keys, reads } = keysAt();

    const found = await Promise.all([1, 2, 3].map(() => keys.keyFor(github.keyId)));

    expect(found[0]).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(new Set(found).size).toBe(1);
    expect(await keys.keyFor('old')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(reads()).toBe(1);
  });

  it('reads the list again for an unknown identifier at most once a minute', async () => {
    const { keys, clock, reads } = keysAt(1_000_000);
    await keys.keyFor(github.keyId);

    const seen = [];
    for (const at of [1_000, 30_000, REFETCH_INTERVAL_MS, REFETCH_INTERVAL_MS + 1_000]) {
      clock.now = 1_000_000 + at;
      expect(await keys.keyFor('unknown')).toBeUndefined();
      seen.push(reads());
    }
    clock.now = 1_000_000 + 2 * REFETCH_INTERVAL_MS + 1;
    await Promise.all([keys.keyFor('unknown'), keys.keyFor('unknown')]);

    expect(seen).toEqual([1, 1, 2, 2]);
    expect(reads()).toBe(3);
    expect(await keys.keyFor(github.keyId)).toBeDefined();
    expect(reads()).toBe(3);
  });

  it('answers PublicKeysUnavailableError when the list cannot be read, and reads it again next time', async () => {
    let attempts = 0;
    const keys = new GitHubPublicKeys(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('connect ECONNREFUSED');
      return { public_keys: [{ key_identifier: 'k', key: 'PEM', is_current: true }] };
    });

    await expect(keys.keyFor('k')).rejects.toThrow(PublicKeysUnavailableError);
    expect(await keys.keyFor('k')).toBe('PEM');
    expect(attempts).toBe(2);
  });

  it("answers PublicKeysUnavailableError for a list that is not GitHub's shape", async () => {
    const keys = new GitHubPublicKeys(async () => ({ keys: [] }));

    await expect(keys.keyFor('k')).rejects.toThrow(PublicKeysUnavailableError);
  });
});

describe('isSignedBy', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const body = '[{"token":"pet_local_x","type":"t","url":"","source":"commit"}]';

  it('holds for the body GitHub signed, byte for byte, and for nothing else', () => {
    const signed = signature(body, privateKey);

    expect(isSignedBy(Buffer.from(body), signed, pem)).toBe(true);
    expect(isSignedBy(Buffer.from(`${body}\n`), signed, pem)).toBe(false);
    expect(isSignedBy(Buffer.from(body.replace('commit', 'Commit')), signed, pem)).toBe(false);
  });

  it('is false for a malformed signature or key, never an error', () => {
    const signed = signature(body, privateKey);

    expect(isSignedBy(Buffer.from(body), 'not base64 DER', pem)).toBe(false);
    expect(isSignedBy(Buffer.from(body), '', pem)).toBe(false);
    expect(isSignedBy(Buffer.from(body), signed, 'not a PEM key')).toBe(false);
  });
});
