/** What admits a leaked-key report: GitHub's signature, the endpoint's only authorization. */
import type { GitHubPublicKeys } from '../secret-scanning/github-public-keys.ts';
import { isSignedBy } from '../secret-scanning/report-signature.ts';
import { ApiError } from './http-errors.ts';
import type { HttpMiddleware } from './middleware.ts';

/**
 * 401 `unauthorized`, before anything reads a token, unless `GITHUB-PUBLIC-KEY-SIGNATURE` signs the
 * body's bytes with the key `GITHUB-PUBLIC-KEY-IDENTIFIER` names (after the header normalizer).
 */
export function githubSignature(keys: GitHubPublicKeys): HttpMiddleware {
  return {
    before: async function githubSignatureBefore({ event }) {
      const identifier = event.headers['github-public-key-identifier'];
      const signature = event.headers['github-public-key-signature'];
      if (!identifier || !signature) {
        throw refused('needs GITHUB-PUBLIC-KEY-IDENTIFIER and GITHUB-PUBLIC-KEY-SIGNATURE');
      }
      const key = await keys.keyFor(identifier);
      if (key === undefined) throw refused("names no key of GitHub's secret scanning keys");
      const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      if (!isSignedBy(body, signature, key)) throw refused('does not carry a valid signature');
    },
  };
}

function refused(why: string): ApiError {
  return new ApiError('unauthorized', `A secret scanning report ${why}.`);
}
