/** The signed `cursor` of `GET /pets` (docs/api.md). Pure: the key is given. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CURSOR_KEY_MIN_LENGTH } from './cursor-key.ts';
import { InvalidCursorError } from './pet-errors.ts';
import type { PetStatus } from './schemas.ts';

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

  /** @throws Error when `key` is shorter than {@link CURSOR_KEY_MIN_LENGTH}. */
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
   * The id the next page starts after, from a cursor this codec issued for `status`.
   * @throws InvalidCursorError (400) when malformed, altered, of another key or status filter.
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
