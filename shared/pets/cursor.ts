/**
 * The `cursor` of `GET /pets` and its `Link: <…>; rel="next"`: base64url of `1.<status>.<last id>`
 * and its HMAC-SHA-256 under the stage's cursor key, so only the service can issue one (docs/api.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { withDeadline } from '../deadline.ts';
import { PETS_PATH, stagePath } from '../paths.ts';
import { readSettings, requiredSetting, type Settings } from '../settings.ts';
import { StoreUnavailableError } from '../store-errors.ts';
import { InvalidCursorError } from './errors.ts';
import type { PetStatus } from './schemas.ts';

/** Shortest accepted cursor key, in characters (its UTF-8 bytes are the HMAC key). */
export const CURSOR_KEY_MIN_LENGTH = 32;

/** How long a container keeps the key read from Secrets Manager, in seconds. */
export const CURSOR_KEY_CACHE_SECONDS = 3600;

/** Bounds of a read of the key, in milliseconds: Secrets Manager's, and the extension's answer's. */
export const SECRET_READ_BOUNDS = { secretsManagerTimeoutMs: 2_000, answerTimeoutMs: 3_000 };

/** Longest cursor accepted, in characters; an issued one has at most 80. */
const CURSOR_MAX_LENGTH = 128;

const MAC_BYTES = 32;

/** The signed text: format version, the status filter (empty for none), the last id returned. */
const PAYLOAD = /^1\.(available|pending|sold|)\.([1-9][0-9]{0,15})$/;

/** Where a page starts: after `afterId`, within the `status` filter (none: every status). */
export interface CursorPosition {
  readonly status?: PetStatus;
  readonly afterId: number;
}

/** Issues and checks cursors under one key. */
export class CursorCodec {
  private readonly key: Buffer;

  /**
   * @param key The stage's cursor key, at least {@link CURSOR_KEY_MIN_LENGTH} characters.
   * @throws Error when the key is shorter.
   */
  constructor(key: string) {
    if (key.length < CURSOR_KEY_MIN_LENGTH) {
      throw new Error(`The cursor key must be at least ${CURSOR_KEY_MIN_LENGTH} characters long`);
    }
    this.key = Buffer.from(key, 'utf8');
  }

  /** The cursor of the page after `position.afterId`, bound to `position.status`. */
  encode(position: CursorPosition): string {
    const payload = Buffer.from(`1.${position.status ?? ''}.${position.afterId}`, 'utf8');
    return Buffer.concat([payload, this.mac(payload)]).toString('base64url');
  }

  /**
   * The last id of the page before, from a cursor this codec issued for `status`.
   *
   * @param cursor The `cursor` query parameter as received.
   * @param status The request's `status` filter; it must be the one the cursor was issued for.
   * @returns The id the next page starts after.
   * @throws InvalidCursorError (HTTP 400 `invalid_parameter`) when it is not base64url, is truncated,
   *   altered or signed under another key, or was issued for another status filter.
   */
  decode(cursor: string, status: PetStatus | undefined): number {
    const bytes = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url') : undefined;
    if (
      !bytes ||
      cursor.length > CURSOR_MAX_LENGTH ||
      bytes.toString('base64url') !== cursor ||
      bytes.length <= MAC_BYTES
    ) {
      throw new InvalidCursorError('is not a cursor this service issued; follow the Link header');
    }
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    const match = timingSafeEqual(bytes.subarray(payload.length), this.mac(payload))
      ? PAYLOAD.exec(payload.toString('utf8'))
      : null;
    if (!match) throw new InvalidCursorError('was altered or not issued by this service');
    const issuedFor = match[1] || undefined;
    if (issuedFor !== status) {
      throw new InvalidCursorError(
        `was issued for ${issuedFor ? `status=${issuedFor}` : 'no status filter'}; send it with the same status`,
      );
    }
    return Number(match[2]);
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}

/**
 * The `Link` header of a page after which more pets exist (RFC 8288): a URI reference to the next
 * page, relative to the host, keeping `limit` and `status`.
 *
 * @example nextPageLink({ limit: 50, status: 'sold' }, '…') → `</v1/pets?limit=50&status=sold&cursor=…>; rel="next"`
 */
export function nextPageLink(query: { limit: number; status?: PetStatus }, cursor: string): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.status) params.set('status', query.status);
  params.set('cursor', cursor);
  return `<${stagePath(PETS_PATH)}?${params}>; rel="next"`;
}

/**
 * The cursor key from the secret `secretArn`, through the extension.
 * @throws StoreUnavailableError when the extension does not answer in time or answers 5xx or 429;
 *   Error for any other answer, or a secret that is not a string.
 */
async function readSecretString(secretArn: string, settings: Settings): Promise<string> {
  const port = settings.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT;
  const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretArn)}`;
  const unavailable = (cause: unknown) =>
    new StoreUnavailableError('The cursor key could not be read.', { cause });
  return withDeadline(SECRET_READ_BOUNDS.answerTimeoutMs, async (signal) => {
    const response = await fetch(url, {
      headers: { 'X-Aws-Parameters-Secrets-Token': settings.AWS_SESSION_TOKEN ?? '' },
      signal,
    }).catch((error: unknown) => {
      throw unavailable(error);
    });
    if (!response.ok) {
      const failure = new Error(
        `Reading the cursor key secret failed: ${response.status} ${await response.text()}`,
      );
      throw response.status === 429 || response.status >= 500 ? unavailable(failure) : failure;
    }
    const { SecretString } = (await response.json()) as { SecretString?: unknown };
    if (typeof SecretString !== 'string') {
      throw new Error('The cursor key secret must hold a string');
    }
    return SecretString;
  });
}

/**
 * The cursor codec keyed from `settings`: `CURSOR_KEY` (local stack, tests), or else the secret
 * `CURSOR_KEY_SECRET_ARN` (deployed), cached {@link CURSOR_KEY_CACHE_SECONDS} (docs/api.md).
 *
 * @returns A function giving the codec; it rejects with StoreUnavailableError when Secrets
 *   Manager is down, slow or throttling, with Error when the secret is missing or too short.
 * @param settings @default readSettings()
 * @throws Error at start-up when neither variable is set.
 */
export function cursorCodecFromSettings(
  settings: Settings = readSettings(),
): () => Promise<CursorCodec> {
  const localKey = settings.CURSOR_KEY;
  if (localKey) {
    const codec = new CursorCodec(localKey);
    return async () => codec;
  }
  const secretArn = requiredSetting(settings, 'CURSOR_KEY_SECRET_ARN');
  let cached: { codec: CursorCodec; readAt: number } | undefined;
  return async function cursorCodec() {
    if (cached && Date.now() - cached.readAt < CURSOR_KEY_CACHE_SECONDS * 1000) {
      return cached.codec;
    }
    const codec = new CursorCodec(await readSecretString(secretArn, settings));
    cached = { codec, readAt: Date.now() };
    return codec;
  };
}
