/** The DynamoDB document client and its calls' bounds. */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FunctionSettings } from '../function-settings.ts';
import { readFunctionSettings, requiredSetting } from '../function-settings.ts';

/** Bounds of every DynamoDB call: a store that does not answer never hangs a function. */
export const DYNAMODB_CALL_BOUNDS = {
  /** To open a TCP connection. */
  connectionTimeoutMs: 3_000,
  /** One attempt's wait for its response: far above DynamoDB's latency. */
  requestTimeoutMs: 5_000,
  /** Attempts per call, the first included (the SDK's standard retries). */
  maxAttempts: 3,
} as const;

/** The region every client of DynamoDB Local signs for, whatever `AWS_REGION` says (docs/local-stack.md). */
export const LOCAL_REGION = 'us-east-1';

/** Credentials and region of DynamoDB Local. */
export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region?: string;
}

export interface DocumentClientOptions {
  /** URL of DynamoDB Local; `''` means AWS. @default - the setting `DYNAMODB_ENDPOINT` */
  readonly endpoint?: string;
  /** DynamoDB Local credentials and region. @default - from the settings */
  readonly local?: LocalCredentials;
  /** @default readFunctionSettings() */
  readonly settings?: FunctionSettings;
  /** AWS region without an endpoint (a stage's other region). @default - the SDK's */
  readonly region?: string;
}

/**
 * A document client with {@link DYNAMODB_CALL_BOUNDS}: of DynamoDB Local given an endpoint, else of
 * AWS. @throws Error naming the variable when a local client has no credentials or one is invalid.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const { local, settings = readFunctionSettings() } = options;
  const url = options.endpoint ?? settings.DYNAMODB_ENDPOINT;
  const config: DynamoDBClientConfig = {
    maxAttempts: DYNAMODB_CALL_BOUNDS.maxAttempts,
    requestHandler: {
      connectionTimeout: DYNAMODB_CALL_BOUNDS.connectionTimeoutMs,
      requestTimeout: DYNAMODB_CALL_BOUNDS.requestTimeoutMs,
      // Without it the SDK only logs a warning and keeps waiting.
      throwOnRequestTimeout: true,
    },
    ...(options.region && { region: options.region }),
    ...(url && {
      endpoint: url,
      region: local?.region ?? LOCAL_REGION,
      credentials: {
        accessKeyId: local?.accessKeyId ?? requiredSetting(settings, 'AWS_ACCESS_KEY_ID'),
        secretAccessKey:
          local?.secretAccessKey ?? requiredSetting(settings, 'AWS_SECRET_ACCESS_KEY'),
      },
    }),
  };
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
