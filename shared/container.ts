/** A function's settings and ports, as its handler factories (functions/handlers/) take them. */

import type { FunctionSettings } from './function-settings.ts';
import type { KeyLookup } from './keys/key-lookup.ts';
import type { PetStore } from './pets/pet-store.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';

/** A function's settings and ports: `createContainer()` on DynamoDB, or tests' in-memory adapters. */
export interface Container {
  readonly settings: FunctionSettings;
  readonly pets: PetStore;
  readonly rateLimiter: RateLimiter;
  /** The authorizer's lookup (keys change through the key service only: keys/key-service.ts). */
  readonly keys: KeyLookup;
  /** Clock of the rate limiter (and the benches' simulated time), epoch ms. @default Date.now */
  readonly now?: () => number;
}
