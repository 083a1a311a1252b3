/**
 * What a function builds once, at start-up: its settings, the one DynamoDB document client its
 * adapters share (one connection pool, one set of bounds), and the adapters of the ports, each
 * built on first use so that a function needs only the tables it reads.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logEachCall } from './call-log.ts';
import { createDocumentClient } from './clients.ts';
import { DynamoDBIdempotencyStore } from './idempotency/dynamodb-idempotency-store.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { DynamoDBKeyStore } from './keys/dynamodb-key-store.ts';
import type { KeyStore } from './keys/key-store.ts';
import { DynamoDBPetStore, type StoreUsage } from './pets/dynamodb-pet-store.ts';
import type { PetStore } from './pets/pet-store.ts';
import { DynamoDBRateLimiter } from './rate-limit/dynamodb-rate-limiter.ts';
import { banPolicyOf, type RateLimiter } from './rate-limit/rate-limiter.ts';
import { readSettings, requiredSetting, type Settings } from './settings.ts';

/**
 * A function's settings and ports. Tests build one from in-memory adapters
 * (`test/support/in-memory-container.ts`) and pass it to an operation's handler factory.
 */
export interface Container {
  readonly settings: Settings;
  readonly pets: PetStore;
  readonly idempotency: IdempotencyStore;
  readonly rateLimiter: RateLimiter;
  readonly keys: KeyStore;
}

/** The container of a deployed or local function: its adapters share `client`. */
export interface DynamoDBContainer extends Container {
  readonly client: DynamoDBDocumentClient;
}

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
 * Reads the settings from `env` and builds the document client they name, which logs the time of
 * each call (`call-log.ts`), and the DynamoDB adapters on it: the pet store (`PETS_TABLE_NAME`;
 * the old sequence's table `COUNTERS_TABLE_NAME`; it completes idempotency records in its creates
 * when `IDEMPOTENCY_TABLE_NAME` is set), the idempotency records (`IDEMPOTENCY_TABLE_NAME`), the
 * rate limiter (`COUNTERS_TABLE_NAME`, ban policy) and the key store (`KEYS_TABLE_NAME`).
 *
 * @throws Error naming the variable when a setting is invalid, or when a DynamoDB Local endpoint
 *   comes without credentials; at an adapter's first use, when its table's name is missing.
 */
export function createContainer(
  env: NodeJS.ProcessEnv = process.env,
  options: ContainerOptions = {},
): DynamoDBContainer {
  const settings = readSettings(env);
  const client = createDocumentClient({ settings });
  logEachCall(client);
  const idempotency = once(
    () => new DynamoDBIdempotencyStore(client, requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME')),
  );
  const pets = once(
    () =>
      new DynamoDBPetStore(
        client,
        {
          pets: requiredSetting(settings, 'PETS_TABLE_NAME'),
          legacyCounters: settings.COUNTERS_TABLE_NAME,
        },
        {
          usage: options.petStoreUsage,
          records: settings.IDEMPOTENCY_TABLE_NAME ? idempotency() : undefined,
        },
      ),
  );
  const rateLimiter = once(
    () =>
      new DynamoDBRateLimiter(
        client,
        requiredSetting(settings, 'COUNTERS_TABLE_NAME'),
        banPolicyOf(settings),
      ),
  );
  const keys = once(
    () => new DynamoDBKeyStore(client, requiredSetting(settings, 'KEYS_TABLE_NAME')),
  );
  return {
    settings,
    client,
    get pets() {
      return pets();
    },
    get idempotency() {
      return idempotency();
    },
    get rateLimiter() {
      return rateLimiter();
    },
    get keys() {
      return keys();
    },
  };
}
