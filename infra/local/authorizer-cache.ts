/**
 * The authorizer result cache of the local gateway, as API Gateway keeps it for a REQUEST
 * authorizer whose identity source is the `Authorization` header: one entry per identity, for the
 * TTL, Allow and Unauthorized alike.
 *
 * Bounded (lru-cache) by entries and by bytes, so that clients sending any number of distinct
 * keys cannot grow the gateway: the least recently used entries go first.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Most identities kept at once. */
export const AUTHORIZER_CACHE_MAX_ENTRIES = 10_000;

/** Most bytes the cached results may take (approximated by their JSON length). */
export const AUTHORIZER_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** Bytes of an entry beyond its result: the key (a SHA-256 in hex) and lru-cache's bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A TTL cache of authorizer outcomes keyed by the SHA-256 of one `Authorization` value: the key
 * is the exact identity, yet every entry's key has the same small size whatever the client sends.
 */
export class AuthorizerCache<Outcome extends object> {
  private readonly cache: LRUCache<string, Outcome> | undefined;

  /**
   * @param ttlSeconds How long an outcome is reused; 0 disables the cache.
   * @param now The gateway's clock, epoch milliseconds.
   */
  constructor(ttlSeconds: number, now: () => number) {
    if (ttlSeconds <= 0) return;
    this.cache = new LRUCache<string, Outcome>({
      max: AUTHORIZER_CACHE_MAX_ENTRIES,
      maxSize: AUTHORIZER_CACHE_MAX_BYTES,
      sizeCalculation: (outcome) => JSON.stringify(outcome).length + ENTRY_OVERHEAD_BYTES,
      // lru-cache keeps an entry while its age is at most `ttl`; API Gateway's is gone at the TTL.
      ttl: ttlSeconds * 1000 - 1,
      // The injected clock moves in jumps in tests: never trust a stale reading of it.
      ttlResolution: 0,
      perf: { now },
    });
  }

  /** The outcome cached for an Authorization value, if it has not expired. */
  get(authorization: string): Outcome | undefined {
    return this.cache?.get(digest(authorization));
  }

  /** Caches an outcome for an Authorization value, for the TTL. */
  set(authorization: string, outcome: Outcome): void {
    this.cache?.set(digest(authorization), outcome);
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
