/**
 * The `cursor` of `GET /pets` and its `Link: <…>; rel="next"` (petstore-spec.md, "Endpoints" >
 * listPets and its gap "Pagination controls other than `limit`"; decisions in the README).
 *
 * A cursor is opaque to clients: base64url of `1.<status>.<last id>` followed by the 32-byte
 * HMAC-SHA-256 of that text under the stage's cursor key. The id makes the next page start after
 * the last pet returned; the status binds the cursor to the filter it was issued for. Only the
 * service can issue one; a changed, truncated or forged cursor fails the HMAC.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { ApiError } from '../http/errors.ts';
import { isDependencyFailure, serviceUnavailable } from '../http/unavailable.ts';
import { readSettings, requiredSetting, type Settings } from '../settings.ts';
import type { PetStatus } from './schemas.ts';

/** Environment variable holding the cursor key itself: the local stack and tests only. */
export const CURSOR_KEY_ENV = 'CURSOR_KEY' satisfies keyof Settings;

/** Environment variable holding the ARN of the Secrets Manager secret with the cursor key (deployed). */
export const CURSOR_KEY_SECRET_ARN_ENV = 'CURSOR_KEY_SECRET_ARN' satisfies keyof Settings;

/** Shortest accepted cursor key, in characters (its UTF-8 bytes are the HMAC key). */
export const CURSOR_KEY_MIN_LENGTH = 32;

/**
 * How long a container keeps the key read from Secrets Manager, in seconds: one read per container
 * and hour, so that a key changed by hand reaches every container within the hour.
 */
export const CURSOR_KEY_CACHE_SECONDS = 3600;

/**
 * Bounds of the Secrets Manager read: at most 2 attempts of 1 s to connect and 2 s to answer
 * (6 s in all), inside the function's 10 s timeout, so a slow Secrets Manager ends in a 503, not a
 * Lambda timeout. A read of one small secret needs far less.
 */
const SECRET_READ_BOUNDS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 2 };

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
   * @throws ApiError `invalid_parameter` naming `cursor` when it is not base64url, is truncated,
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
      throw invalidCursor('is not a cursor this service issued; follow the Link header');
    }
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    const match = timingSafeEqual(bytes.subarray(payload.length), this.mac(payload))
      ? PAYLOAD.exec(payload.toString('utf8'))
      : null;
    if (!match) throw invalidCursor('was altered or not issued by this service');
    const issuedFor = match[1] || undefined;
    if (issuedFor !== status) {
      throw invalidCursor(
        `was issued for ${issuedFor ? `status=${issuedFor}` : 'no status filter'}; send it with the same status`,
      );
    }
    return Number(match[2]);
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}

function invalidCursor(reason: string): ApiError {
  return new ApiError('invalid_parameter', `cursor: ${reason}`);
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
  return `</v1/pets?${params}>; rel="next"`;
}

/**
 * The cursor codec of a function, keyed from its settings: `CURSOR_KEY` (the local stack and
 * tests) or else the Secrets Manager secret named by `CURSOR_KEY_SECRET_ARN` (deployed), read
 * with Powertools Parameters and cached {@link CURSOR_KEY_CACHE_SECONDS}; a failed read is not
 * cached, so the next request tries again. The read is bounded by {@link SECRET_READ_BOUNDS}, so
 * a slow Secrets Manager cannot hang the function.
 *
 * @returns A function giving the codec. It rejects with ApiError 503 `service_unavailable`
 *   (`Retry-After`) when Secrets Manager is down, slow or throttling, and with the error itself
 *   when the secret is missing, not readable or too short (a deployment fault: 500).
 * @param settings @default readSettings()
 * @throws Error at start-up when neither variable is set.
 */
export function cursorCodecFromEnv(
  settings: Settings = readSettings(),
): () => Promise<CursorCodec> {
  const localKey = settings.CURSOR_KEY;
  if (localKey) {
    const codec = new CursorCodec(localKey);
    return async () => codec;
  }
  const secretArn = requiredSetting(settings, 'CURSOR_KEY_SECRET_ARN');
  const secrets = new SecretsProvider({
    clientConfig: {
      maxAttempts: SECRET_READ_BOUNDS.maxAttempts,
      requestHandler: {
        connectionTimeout: SECRET_READ_BOUNDS.connectionTimeoutMs,
        requestTimeout: SECRET_READ_BOUNDS.requestTimeoutMs,
        throwOnRequestTimeout: true,
      },
    },
  });
  let cached: { key: string; codec: CursorCodec } | undefined;
  return async function cursorCodec() {
    const key = await secrets
      .get(secretArn, { maxAge: CURSOR_KEY_CACHE_SECONDS, throwOnMissing: true })
      .catch((error: unknown) => {
        // Powertools wraps the SDK's error; its cause says whether it is worth a retry.
        throw isDependencyFailure((error as Error).cause)
          ? serviceUnavailable('The cursor key could not be read.', error)
          : error;
      });
    if (typeof key !== 'string') throw new Error('The cursor key secret must hold a string');
    if (cached?.key !== key) cached = { key, codec: new CursorCodec(key) };
    return cached.codec;
  };
}
