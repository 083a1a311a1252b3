/**
 * A Container of in-memory adapters, for building an operation's handler without DynamoDB:
 * `createPetHandler(inMemoryContainer())` (see `functions/handlers/`).
 */
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import type { Container } from '../../shared/container.ts';
import { banPolicyOf } from '../../shared/rate-limit/rate-limiter.ts';
import { readSettings } from '../../shared/settings.ts';
import { InMemoryIdempotencyStore } from './in-memory-idempotency-store.ts';
import { InMemoryKeyStore } from './in-memory-key-store.ts';
import { InMemoryPetStore } from './in-memory-pet-store.ts';
import { InMemoryRateLimiter } from './in-memory-rate-limiter.ts';

/** A Container whose adapters a test can also reach as their in-memory classes. */
export interface InMemoryContainer extends Container {
  readonly pets: InMemoryPetStore;
  readonly rateLimiter: InMemoryRateLimiter;
  readonly keys: InMemoryKeyStore;
}

/**
 * Fresh, empty in-memory adapters, and settings read from `env` (a random `CURSOR_KEY` unless
 * `env` sets one; the ban policy from `RATE_LIMIT_BAN_*`).
 *
 * @param env Settings as environment variables. @default - none: the schema's defaults
 */
export function inMemoryContainer(env: NodeJS.ProcessEnv = {}): InMemoryContainer {
  const settings = readSettings({ CURSOR_KEY: newSecretValue(), ...env });
  return {
    settings,
    pets: new InMemoryPetStore(new InMemoryIdempotencyStore()),
    rateLimiter: new InMemoryRateLimiter(banPolicyOf(settings)),
    keys: new InMemoryKeyStore(),
  };
}
