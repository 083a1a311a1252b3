/**
 * The DynamoDB document client and its bounds. An operation's container builds one at start-up and
 * shares it between its store and the rate limiter (see `container.ts`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readSettings, requiredSetting, type Settings } from './settings.ts';

/**
 * Bounds of every DynamoDB call, so that a store that does not answer can never hang a function.
 * One attempt waits at most `requestTimeoutMs` for a response after `connectionTimeoutMs` for a
 * connection; the SDK's standard retry strategy makes at most `maxAttempts`, with backoff. A call
 * is further cut short by the `abortSignal` its caller passes (the invocation's deadline).
 *
 * A retried attempt may repeat a write that landed although its answer did not arrive in time: the
 * stores recognise their own conditional writes (see `DynamoDBPetStore.createPet` and
 * `DynamoDBIdempotencyStore.begin`); a repeated rate-limit write counts a request twice, which
 * errs towards admitting fewer.
 */
export const DYNAMODB_CALL_BOUNDS = {
  /** Milliseconds to open a TCP connection. */
  connectionTimeoutMs: 3_000,
  /**
   * Milliseconds one attempt waits for its response: far above DynamoDB's latency, so that only
   * a stuck attempt is cut (a merely slow one retried would repeat its write, and a repeated
   * rate-limit count admits fewer requests than the limit).
   */
  requestTimeoutMs: 5_000,
  /** Attempts per call, the first included. */
  maxAttempts: 3,
} as const;

/**
 * What the local stack does to each client built while it imports a function
 * (`withGrants` of infra/local/iam.ts: refuse what the function's IAM role would). Never set
 * on AWS, where IAM itself refuses.
 */
export const clientPolicy = new AsyncLocalStorage<
  (client: DynamoDBDocumentClient, settings: Settings) => void
>();

/** Credentials and region of DynamoDB Local, which keeps one database per access key id and region. */
export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region?: string;
}

/** Options of {@link createDocumentClient}. */
export interface DocumentClientOptions {
  /**
   * URL of DynamoDB Local, e.g. `http://127.0.0.1:8000`; `''` means AWS even when the setting is
   * set. @default - the setting `DYNAMODB_ENDPOINT`
   */
  readonly endpoint?: string;
  /** DynamoDB Local credentials and region. @default - from the settings */
  readonly local?: LocalCredentials;
  /** @default readSettings() */
  readonly settings?: Settings;
}

/**
 * A DynamoDB document client with {@link DYNAMODB_CALL_BOUNDS}: of DynamoDB Local with an
 * endpoint (credentials from `local`, else the settings' `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`), otherwise of AWS with the default credential chain.
 * Inside {@link clientPolicy}'s context, that policy is applied to it.
 *
 * @throws Error naming the variable when a local client has no credentials or a setting is invalid.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const { local, settings = readSettings() } = options;
  const url = options.endpoint ?? settings.DYNAMODB_ENDPOINT;
  const config: DynamoDBClientConfig = {
    maxAttempts: DYNAMODB_CALL_BOUNDS.maxAttempts,
    requestHandler: {
      connectionTimeout: DYNAMODB_CALL_BOUNDS.connectionTimeoutMs,
      requestTimeout: DYNAMODB_CALL_BOUNDS.requestTimeoutMs,
      // Without it the SDK only logs a warning and keeps waiting.
      throwOnRequestTimeout: true,
    },
    ...(url && {
      endpoint: url,
      region: local?.region ?? settings.AWS_REGION ?? 'us-east-1',
      credentials: {
        accessKeyId: local?.accessKeyId ?? requiredSetting(settings, 'AWS_ACCESS_KEY_ID'),
        secretAccessKey:
          local?.secretAccessKey ?? requiredSetting(settings, 'AWS_SECRET_ACCESS_KEY'),
      },
    }),
  };
  const client = new DynamoDBClient(config);
  const documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  clientPolicy.getStore()?.(documentClient, settings);
  return documentClient;
}
