/** The settings every function reads at start-up, and how a setting is read; the others: settings.ts. */
import * as v from 'valibot';

export const Text = v.pipe(v.string(), v.nonEmpty());

export const WholeNumber = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a whole number >= 1'),
  v.transform(Number),
  v.minValue(1, 'must be a whole number >= 1'),
);

export const Port = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a port number from 0 to 65535'),
  v.transform(Number),
  v.maxValue(65_535, 'must be a port number from 0 to 65535'),
);

/** Every function's settings by variable name, defaults as text. Each gets only its own tables. */
export const FunctionSettingsSchema = v.object({
  /** Tables' names (dynamodb/tables.ts). */
  PETS_TABLE_NAME: v.optional(Text),
  KEYS_TABLE_NAME: v.optional(Text),
  COUNTERS_TABLE_NAME: v.optional(Text),
  IDEMPOTENCY_TABLE_NAME: v.optional(Text),
  AUDIT_TABLE_NAME: v.optional(Text),
  /** URL of DynamoDB Local, e.g. `http://127.0.0.1:8000`; unset on AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** The function's region, and DynamoDB Local's credentials (on AWS: the default chain). */
  AWS_REGION: v.optional(Text),
  AWS_ACCESS_KEY_ID: v.optional(Text),
  AWS_SECRET_ACCESS_KEY: v.optional(Text),
  /** The stage's regions, home first, comma-separated (`regionsOf`; docs/architecture.md, "Regions"). */
  PETSTORE_REGIONS: v.optional(Text),
  /** Refused requests a key may send in one UTC minute before a ban (docs/rate-limits.md). */
  RATE_LIMIT_BAN_THRESHOLD: v.optional(WholeNumber, '50'),
  /** Seconds. */
  RATE_LIMIT_BAN_SECONDS: v.optional(WholeNumber, '900'),
  /** Milliseconds a request waits for the rate limiter, then is admitted uncounted. */
  RATE_LIMIT_DEADLINE_MS: v.optional(WholeNumber, '5000'),
  /** The `stage` dimension of every metric. */
  PETSTORE_STAGE: v.optional(Text, 'local'),
  /** Cursor signing key (local stack, tests), or the secret holding it (deployed stages). */
  CURSOR_KEY: v.optional(Text),
  CURSOR_KEY_SECRET_ARN: v.optional(Text),
  /** Port of the Parameters and Secrets Lambda Extension; the role's token it asks for. */
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: v.optional(Port, '2773'),
  AWS_SESSION_TOKEN: v.optional(Text),
});

/** Parsed: numbers as numbers, defaults filled in. */
export type FunctionSettings = v.InferOutput<typeof FunctionSettingsSchema>;

/**
 * Reads the settings of `schema` from `env`.
 * @throws Error naming each variable that is set to an invalid value, e.g.
 *   `Environment variable RATE_LIMIT_BAN_SECONDS must be a whole number >= 1, not "1.5"`.
 */
export function parseSettings<TSchema extends v.GenericSchema>(
  schema: TSchema,
  env: NodeJS.ProcessEnv,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, withoutEmpty(env));
  if (result.success) return result.output;
  throw new Error(result.issues.map((issue) => describe(issue, env)).join('\n'));
}

/** Every function's settings from `env`. @throws Error naming each invalid variable. */
export function readFunctionSettings(env: NodeJS.ProcessEnv = process.env): FunctionSettings {
  return parseSettings(FunctionSettingsSchema, env);
}

/** A setting the schema leaves optional but a component needs. @throws Error naming it when unset. */
export function requiredSetting<TSettings, N extends keyof TSettings & string>(
  settings: TSettings,
  name: N,
): NonNullable<TSettings[N]> {
  const value = settings[name];
  if (value == null) throw new Error(`Environment variable ${name} is required`);
  return value;
}

/** `env` without its empty variables, which count as unset. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

/** `Environment variable NAME <message>, not "<value>"`. */
function describe(issue: v.BaseIssue<unknown>, env: NodeJS.ProcessEnv): string {
  const name = v.getDotPath(issue) ?? '(unknown)';
  return `Environment variable ${name} ${issue.message}, not "${env[name]}"`;
}
