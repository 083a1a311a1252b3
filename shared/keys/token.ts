/** Bearer tokens with a stage prefix and a checksum (format: docs/operations.md). */
import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export type TokenStage = 'local' | 'staging' | 'production';

/** The prefix of each stage's tokens. */
export const TOKEN_PREFIXES: Readonly<Record<TokenStage, string>> = {
  local: 'pet_local_',
  staging: 'pet_stg_',
  production: 'pet_prod_',
};

/** Base62 characters of the random part: 32 of them, about 190 random bits. */
const RANDOM_LENGTH = 32;
/** Base62 characters of the checksum: CRC32 of the random part, zero-padded (62^6 > 2^32). */
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Every current token, for secret scanners (gitleaks, GitHub custom patterns). */
export const TOKEN_PATTERN = /\bpet_(?:local|stg|prod)_[0-9A-Za-z]{38}\b/;

/** What the shape of a string says about it as a token (`inspectToken`). */
export type TokenShape =
  | { readonly kind: 'current'; readonly stage: TokenStage }
  | { readonly kind: 'malformed'; readonly reason: string };

/** `value` in base62, left-padded with `0` to `length`. */
function base62(value: number, length: number): string {
  let digits = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62))
    digits = BASE62[rest % 62] + digits;
  return digits.padStart(length, '0');
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/** A fresh bearer token: prefix, 32 random base62 characters, checksum. @param stage @default 'local' */
export function generateToken(stage: TokenStage = 'local'): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${TOKEN_PREFIXES[stage]}${random}${checksum(random)}`;
}

/** What a string is as a token, from its characters alone: `current` or `malformed` (why). */
export function inspectToken(token: string): TokenShape {
  const entry = Object.entries(TOKEN_PREFIXES).find(([, prefix]) => token.startsWith(prefix));
  if (!entry) return { kind: 'malformed', reason: 'no Petstore token prefix' };
  const [stage, prefix] = entry as [TokenStage, string];
  const body = token.slice(prefix.length);
  if (!/^[0-9A-Za-z]+$/.test(body) || body.length !== RANDOM_LENGTH + CHECKSUM_LENGTH) {
    return {
      kind: 'malformed',
      reason: `not ${RANDOM_LENGTH + CHECKSUM_LENGTH} base62 characters after ${prefix}`,
    };
  }
  if (checksum(body.slice(0, RANDOM_LENGTH)) !== body.slice(RANDOM_LENGTH)) {
    return { kind: 'malformed', reason: 'wrong checksum' };
  }
  return { kind: 'current', stage };
}

/** Whether the keys table may hold `token` on `stage`; anything else is refused without a read. */
export function mayBeKeyOf(token: string, stage: TokenStage): boolean {
  const shape = inspectToken(token);
  return shape.kind === 'current' && shape.stage === stage;
}

/** The token stage of a `PETSTORE_STAGE` value: a deployed stage's name, else `local`. */
export function tokenStageOf(stage: string): TokenStage {
  return stage === 'staging' || stage === 'production' ? stage : 'local';
}

/** SHA-256 of a bearer token, lower-case hex: the keys table's partition key. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
