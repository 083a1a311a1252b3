import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { freePort } from '../../infra/local/ports.ts';
import { apiErrorOf } from '../../shared/http/error-mapping.ts';
import { ApiError } from '../../shared/http/http-errors.ts';
import { nextPageLink } from '../../shared/http/page-link.ts';
import { CursorCodec } from '../../shared/pets/cursor.ts';
import { InvalidCursorError } from '../../shared/pets/pet-errors.ts';
import type { PetStatus } from '../../shared/pets/schemas.ts';
import { cursorCodecFromSettings } from '../../shared/secrets.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';

const codec = new CursorCodec(newSecretValue());

/**
 * The message of the answer to the error that decoding `cursor` for `status` throws (an
 * InvalidCursorError, answered by the one mapping of shared/http), or `undefined`.
 */
function refusal(cursor: string, status?: PetStatus): string | undefined {
  try {
    codec.decode(cursor, status);
    return undefined;
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(InvalidCursorError);
    const error = apiErrorOf(thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_parameter');
    return (error as ApiError).message;
  }
}

describe('CursorCodec', () => {
  it.each([
    [undefined, 1],
    ['available', 42],
    ['sold', Number.MAX_SAFE_INTEGER],
  ] as const)('gives back the id of a cursor it issued for status %s', (status, afterId) => {
    const cursor = codec.encode({ status, afterId });

    expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(codec.decode(cursor, status)).toBe(afterId);
  });

  it('refuses every truncation of a cursor', () => {
    const cursor = codec.encode({ status: 'pending', afterId: 1234 });

    for (let length = 0; length < cursor.length; length++) {
      expect(refusal(cursor.slice(0, length), 'pending'), `length ${length}`).toMatch(/^cursor: /);
    }
  });

  it('refuses a cursor with any one character changed', () => {
    const cursor = codec.encode({ afterId: 99 });

    for (let i = 0; i < cursor.length; i++) {
      const changed = cursor[i] === 'A' ? 'B' : 'A';
      const altered = `${cursor.slice(0, i)}${changed}${cursor.slice(i + 1)}`;
      expect(refusal(altered), `position ${i}`).toMatch(/^cursor: /);
    }
  });

  it('refuses a cursor with another id signed under another key', () => {
    const forged = new CursorCodec(newSecretValue()).encode({ afterId: 5 });

    expect(refusal(forged)).toBe('cursor: was altered or not issued by this service');
  });

  it.each([
    ['not base64url', 'abc+/='],
    ['too short to hold a signature', 'MS4uNQ'],
    ['empty', ''],
    ['too long', 'A'.repeat(400)],
  ])('refuses a cursor that is %s', (_, cursor) => {
    expect(refusal(cursor)).toBe(
      'cursor: is not a cursor this service issued; follow the Link header',
    );
  });

  it('refuses a cursor sent with another status, or without the one it was issued for', () => {
    const sold = codec.encode({ status: 'sold', afterId: 7 });
    const unfiltered = codec.encode({ afterId: 7 });

    expect(refusal(sold, 'pending')).toBe(
      'cursor: was issued for status=sold; send it with the same status',
    );
    expect(refusal(sold)).toBe('cursor: was issued for status=sold; send it with the same status');
    expect(refusal(unfiltered, 'sold')).toBe(
      'cursor: was issued for no status filter; send it with the same status',
    );
  });

  it('refuses a key shorter than 32 characters', () => {
    expect(() => new CursorCodec('k'.repeat(31))).toThrow(
      'The cursor key must be at least 32 characters long',
    );
  });
});

describe('nextPageLink', () => {
  it('links the next page relative to the host, keeping limit and status', () => {
    expect(nextPageLink({ limit: 50, status: 'sold' }, 'abc_-1')).toBe(
      '</v1/pets?limit=50&status=sold&cursor=abc_-1>; rel="next"',
    );
    expect(nextPageLink({ limit: 20 }, 'xyz')).toBe('</v1/pets?limit=20&cursor=xyz>; rel="next"');
  });
});

describe('cursorCodecFromSettings', () => {
  const saved = { ...process.env };
  const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cursor-key-AbCdEf';
  const sessionToken = 'session-token';
  /**
   * A stand-in for the AWS Parameters and Secrets Lambda Extension, which cannot run here: it
   * answers each request with the next of `answers` (status and body) and records the request.
   */
  const extension = {
    answers: [] as { status: number; body: string }[],
    requests: [] as IncomingMessage[],
    server: createServer((request, response) => {
      extension.requests.push(request);
      const { status, body } = extension.answers.shift() ?? { status: 500, body: 'no answer' };
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    }),
  };
  const secretString = (key: string) => ({
    status: 200,
    body: JSON.stringify({ ARN: secretArn, SecretString: key }),
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => extension.server.listen(0, 'localhost', resolve));
  });
  afterAll(() => extension.server.close());
  afterEach(() => {
    extension.answers = [];
    extension.requests = [];
    process.env = { ...saved };
  });

  /** The environment of a deployed listPets: the secret's ARN and the extension's port. */
  function deployed(): void {
    delete process.env.CURSOR_KEY;
    process.env.CURSOR_KEY_SECRET_ARN = secretArn;
    process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(
      (extension.server.address() as AddressInfo).port,
    );
    process.env.AWS_SESSION_TOKEN = sessionToken;
  }

  it('uses CURSOR_KEY when it is set, without reading Secrets Manager', async () => {
    const key = newSecretValue();
    process.env.CURSOR_KEY = key;

    const cursor = (await cursorCodecFromSettings()()).encode({ afterId: 3 });

    expect(new CursorCodec(key).decode(cursor, undefined)).toBe(3);
    expect(extension.requests).toHaveLength(0);
  });

  it('reads the key from the secret named by CURSOR_KEY_SECRET_ARN through the extension once, then from its cache', async () => {
    deployed();
    const key = 'k'.repeat(64);
    extension.answers.push(secretString(key));

    const codecFromSettings = cursorCodecFromSettings();
    const cursor = (await codecFromSettings()).encode({ status: 'sold', afterId: 8 });
    const decoded = (await codecFromSettings()).decode(cursor, 'sold');

    expect(decoded).toBe(8);
    expect(new CursorCodec(key).decode(cursor, 'sold')).toBe(8);
    expect(extension.requests.map((request) => request.url)).toEqual([
      `/secretsmanager/get?secretId=${encodeURIComponent(secretArn)}`,
    ]);
    expect(extension.requests[0]?.headers['x-aws-parameters-secrets-token']).toBe(sessionToken);
  });

  it('rejects with the error, and reads again on the next call, when the secret cannot be read', async () => {
    deployed();
    extension.answers.push(
      { status: 400, body: 'ResourceNotFoundException' },
      secretString('k'.repeat(64)),
    );

    const codecFromSettings = cursorCodecFromSettings();

    await expect(codecFromSettings()).rejects.toThrow(
      'Reading the cursor key secret failed: 400 ResourceNotFoundException',
    );
    await expect(codecFromSettings()).resolves.toBeInstanceOf(CursorCodec);
    expect(extension.requests).toHaveLength(2);
  });

  it('rejects a secret that is not a string or is too short', async () => {
    deployed();
    extension.answers.push(
      { status: 200, body: JSON.stringify({ ARN: secretArn, SecretBinary: 'AAAA' }) },
      secretString('short'),
    );

    const codecFromSettings = cursorCodecFromSettings();

    await expect(codecFromSettings()).rejects.toThrow('The cursor key secret must hold a string');
    await expect(codecFromSettings()).rejects.toThrow('at least 32 characters');
  });

  it.each([
    ['answers 429 (Secrets Manager throttles)', 429],
    ['answers 502 (Secrets Manager fails)', 502],
    ['does not listen', undefined],
  ])(
    'rejects with 503 service_unavailable and Retry-After when the extension %s',
    async (_, status) => {
      deployed();
      if (status) extension.answers.push({ status, body: 'ThrottlingException' });
      else process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(await freePort());

      const thrown = await cursorCodecFromSettings()().catch((rejected: unknown) => rejected);
      const error = apiErrorOf(thrown);

      expect(thrown).toBeInstanceOf(StoreUnavailableError);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).toBody()).toEqual({
        code: 'service_unavailable',
        message: 'The cursor key could not be read. Retry after 5 seconds.',
        status: 503,
      });
      expect((error as ApiError).headers).toEqual({ 'Retry-After': '5' });
    },
  );

  it('fails at start-up when neither variable is set', () => {
    delete process.env.CURSOR_KEY;
    delete process.env.CURSOR_KEY_SECRET_ARN;

    expect(() => cursorCodecFromSettings()).toThrow(
      `Environment variable CURSOR_KEY_SECRET_ARN is required`,
    );
  });
});
