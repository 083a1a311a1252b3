/**
 * The local gateway's authorizer result cache, as API Gateway keeps it: one entry per
 * `Authorization` value for the TTL, Allow and Unauthorized alike, bounded by entries and bytes.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AuthorizerOutcome } from './invocation.ts';

/** Most identities kept at once. */
const AUTHORIZER_CACHE_MAX_ENTRIES = 10_000;

/** Most bytes the cached results may take (approximated by their JSON length). */
const AUTHORIZER_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** Bytes of an entry beyond its result: the key (a SHA-256 in hex) and lru-cache's bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A TTL cache of authorizer outcomes keyed by the SHA-256 of one `Authorization` value: the key
 * is the exact identity, yet every entry's key has the same small size whatever the client sends.
 */
export class AuthorizerCache {
  private readonly cache: LRUCache<string, AuthorizerOutcome> | undefined;

  /**
   * @param ttlSeconds How long an outcome is reused; 0 disables the cache.
   * @param now The gateway's clock, epoch milliseconds.
   */
  constructor(ttlSeconds: number, now: () => number) {
    if (ttlSeconds <= 0) return;
    this.cache = new LRUCache<string, AuthorizerOutcome>({
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

  /**
   * The authorizer's outcome for one Authorization value: the cached one while it is fresh, else
   * what `invokeAuthorizer` resolves to, cached if API Gateway would cache it. A result is cached
   * whatever its policy (the caller checks the policy against each call's method ARN), and so is
   * an UNAUTHORIZED refusal; a failure is not, so that the next request calls the authorizer again.
   */
  async authorize(
    authorization: string,
    invokeAuthorizer: () => Promise<AuthorizerOutcome>,
  ): Promise<AuthorizerOutcome> {
    const key = digest(authorization);
    const cached = this.cache?.get(key);
    if (cached) return cached;
    const outcome = await invokeAuthorizer();
    if ('result' in outcome || outcome.refusal === 'UNAUTHORIZED') this.cache?.set(key, outcome);
    return outcome;
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
