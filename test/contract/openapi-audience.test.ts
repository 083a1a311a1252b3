/**
 * docs/openapi.yaml speaks to API clients: none of its text (descriptions, summaries, examples)
 * names the project's files, commands, settings or internal documents.
 */
import { describe, expect, it } from 'vitest';
import { document } from '../support/openapi-document.ts';

/** What only the project's developers know, as it would appear in the document's text. */
const INTERNAL = [
  /\bnpm\b/,
  /\bnpx\b/,
  /\b(?:test|infra|shared|functions|bench|client)\//,
  /\.ts\b/,
  /petstore-spec/,
  /\bREADME\b/,
  /\.petstore\b/,
  /\bvalibot\b/,
  /(?<!<)\b[A-Z]+_[A-Z_]+\b(?!>)/, // environment variables (not the <API_KEY> placeholder): RATE_LIMIT_BAN_SECONDS, KEYS_TABLE_NAME
  /\b(?:stack|DynamoDB|Lambda|authorizer)\b/i,
];

/** Every string of a parsed document, with where it is. */
function strings(node: unknown, at = ''): [where: string, text: string][] {
  if (typeof node === 'string') return [[at, node]];
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => [
    ...strings(key, `${at}/${key} (key)`),
    ...strings(value, `${at}/${key}`),
  ]);
}

/** The places in `node` whose text matches one of {@link INTERNAL}. */
function internalMentions(node: unknown): string[] {
  return strings(node).flatMap(([where, text]) =>
    INTERNAL.filter((pattern) => pattern.test(text)).map((pattern) => `${where}: ${pattern}`),
  );
}

describe('docs/openapi.yaml', () => {
  it('names none of the project’s files, commands, settings or internal documents', () => {
    expect(internalMentions(document)).toEqual([]);
  });

  it('would name them: the check finds a command, a path, a setting and the old spec', () => {
    expect(
      internalMentions({
        a: 'Keys are issued with `npm run keys -- create`.',
        b: 'tested in `test/contract/`',
        c: 'set `RATE_LIMIT_BAN_SECONDS`',
        d: 'The API of `petstore-spec.md`.',
      }),
    ).toHaveLength(4);
  });
});
