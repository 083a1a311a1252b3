/**
 * The cursor key's one rule, apart from the codec (cursor.ts) so that the secret's definition
 * (secret-definitions.ts), which every function's operations carry, does not bring the codec along.
 */

/** Shortest accepted cursor key, in characters (its UTF-8 bytes are the HMAC key). */
export const CURSOR_KEY_MIN_LENGTH = 32;
