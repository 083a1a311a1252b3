/** A function's ports, and every DynamoDB adapter on one client (local stack, tests, benches). */
import { createDynamoDBBase, type DynamoDBBase } from './dynamodb-base.ts';
import { DynamoDBIdempotencyStore } from './idempotency/dynamodb-idempotency-store.ts';
import { DynamoDBKeyStore } from './keys/dynamodb-key-store.ts';
import type { KeyAdministration } from './keys/key-administration.ts';
import type { KeyLookup } from './keys/key-lookup.ts';
import { DynamoDBPetStore, type StoreUsage } from './pets/dynamodb-pet-store.ts';
import type { PetStore } from './pets/pet-store.ts';
import { DynamoDBRateLimiter } from './rate-limit/dynamodb-rate-limiter.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import type { Settings } from './settings.ts';

/**
 * A function's settings and ports. Tests build one from in-memory adapters
 * (`test/support/in-memory-container.ts`) and pass it to an operation's handler factory.
 */
export interface Container {
  readonly settings: Settings;
  readonly pets: PetStore;
  readonly rateLimiter: RateLimiter;
  /** The authorizer's lookup and the keys command's administration (`npm start` issues keys). */
  readonly keys: KeyLookup & KeyAdministration;
  /** Clock of the rate limiter (and the benches' simulated time), epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** The container of a deployed or local function: its adapters share `client`. */
export interface DynamoDBContainer extends Container, DynamoDBBase {}

/** Options of {@link createContainer}. */
export interface ContainerOptions {
  /**
   * Counters that the pet store's `status-index` reads add to (tests and benches read them).
   * @default - fresh counters that no one reads
   */
  readonly petStoreUsage?: StoreUsage;
}

/** `build`, called once, on first use. */
function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/**
 * Every DynamoDB adapter on the settings of `env` and one document client, each built on first use
 * (the pet store writes idempotency records when `IDEMPOTENCY_TABLE_NAME` is set). A Lambda
 * entry builds only its own adapters instead (`functions/*.ts`).
 * @throws Error naming the variable when a setting is invalid; at an adapter's first use, when its
 *   table's name is missing.
 */
export function createContainer(
  env: NodeJS.ProcessEnv = process.env,
  options: ContainerOptions = {},
): DynamoDBContainer {
  const base = createDynamoDBBase(env);
  const pets = once(() =>
    DynamoDBPetStore.from(base, {
      usage: options.petStoreUsage,
      records: base.settings.IDEMPOTENCY_TABLE_NAME
        ? DynamoDBIdempotencyStore.from(base)
        : undefined,
    }),
  );
  const rateLimiter = once(() => DynamoDBRateLimiter.from(base));
  const keys = once(() => DynamoDBKeyStore.from(base));
  return {
    ...base,
    get pets() {
      return pets();
    },
    get rateLimiter() {
      return rateLimiter();
    },
    get keys() {
      return keys();
    },
  };
}
