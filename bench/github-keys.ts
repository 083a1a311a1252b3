/**
 * GitHub's secret scanning as the tests and the bench play it: an ECDSA P-256 key pair of their
 * own, its list served over HTTP as GitHub serves
 * https://api.github.com/meta/public_keys/secret_scanning (for `SECRET_SCANNING_KEYS_URL`), reads
 * of it counted, and reports signed over their bytes.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A reported match, as GitHub sends it. */
export interface Match {
  readonly token: string;
  readonly type: string;
  readonly url: string;
  readonly source: string;
}

/** The served key list and its signing key. */
export interface GitHubKeys {
  /** The list's URL. */
  readonly url: string;
  /** The identifier of the key that signs. */
  readonly keyId: string;
  /** How many times the list was read. */
  reads(): number;
  /** The headers of a report of `body` (its bytes as sent), signed. */
  signedHeaders(body: string): Record<string, string>;
  close(): Promise<void>;
}

/** A fresh signing key: its private half and its public half as PEM (SPKI). */
function keyPair(): { privateKey: KeyObject; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** `body` signed as GitHub signs a report: ECDSA P-256, SHA-256, DER, base64. */
export function signature(body: string, privateKey: KeyObject): string {
  return sign('sha256', Buffer.from(body), privateKey).toString('base64');
}

/** Starts the list on a free port of 127.0.0.1, with one key and another that never signs. */
export async function serveGitHubKeys(): Promise<GitHubKeys> {
  const signing = keyPair();
  const keyId = createHash('sha256').update(signing.pem).digest('hex');
  const list = {
    public_keys: [
      { key_identifier: keyId, key: signing.pem, is_current: true },
      { key_identifier: 'old', key: keyPair().pem, is_current: false },
    ],
  };
  let reads = 0;
  const server = createServer((_request, response) => {
    reads += 1;
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(list));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/meta/public_keys/secret_scanning`,
    keyId,
    reads: () => reads,
    signedHeaders: (body) => ({
      'Content-Type': 'application/json',
      'GITHUB-PUBLIC-KEY-IDENTIFIER': keyId,
      'GITHUB-PUBLIC-KEY-SIGNATURE': signature(body, signing.privateKey),
    }),
    close: () =>
      new Promise((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/** A match of `token` at a GitHub URL of `file`, source `content`. */
export function match(token: string, file = 'config.env'): Match {
  return {
    token,
    type: 'petstore_api_token',
    url: `https://github.com/octo-org/app/blob/9f1a2b3/${file}`,
    source: 'content',
  };
}

/** SHA-256 of `token`, lower-case hex: its `token_hash` in the feedback. */
export function sha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
