/**
 * Every setting read from the environment, in one valibot schema: the functions' (tables,
 * DynamoDB endpoint, rate-limit policy, stage, cursor key) and the local stack's (ports, data
 * directory). An operation's container reads them once, at start-up (see `container.ts`); a bad
 * value fails there with a message that names the variable, never at a client's request.
 *
 * An empty variable counts as unset. Table names are optional here because each function gets only
 * the tables it uses; the store that needs one asks for it with {@link requiredSetting}.
 */
import * as v from 'valibot';

/** A non-empty string. */
const Text = v.pipe(v.string(), v.nonEmpty());

/** A decimal whole number >= 1, e.g. `"50"`. */
const WholeNumber = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a whole number >= 1'),
  v.transform(Number),
  v.minValue(1, 'must be a whole number >= 1'),
);

/** A TCP port, `"0"` (any free port) to `"65535"`. */
const Port = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a port number from 0 to 65535'),
  v.transform(Number),
  v.maxValue(65_535, 'must be a port number from 0 to 65535'),
);

/** The schema of every setting, by variable name; defaults as the variables' text. */
export const SettingsSchema = v.object({
  /** Pets table (`PETS_TABLE`). */
  PETS_TABLE_NAME: v.optional(Text),
  /** Keys table (`KEYS_TABLE`). */
  KEYS_TABLE_NAME: v.optional(Text),
  /** Counters table (`COUNTERS_TABLE`): the rate limiter's, and the old pet-id sequence's. */
  COUNTERS_TABLE_NAME: v.optional(Text),
  /** Idempotency records of createPet (`IDEMPOTENCY_TABLE`). */
  IDEMPOTENCY_TABLE_NAME: v.optional(Text),
  /** URL of DynamoDB Local, e.g. `http://127.0.0.1:8000`; unset on AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** Region of the DynamoDB client (on AWS, Lambda sets it). */
  AWS_REGION: v.optional(Text),
  /** Credentials of DynamoDB Local (on AWS the default provider chain is used). */
  AWS_ACCESS_KEY_ID: v.optional(Text),
  AWS_SECRET_ACCESS_KEY: v.optional(Text),
  /**
   * Rejected requests a key may send in one UTC minute before it is banned. A client that honours
   * `Retry-After` gets one 429 per worker at most; a retry loop passes 50 within a second or two.
   * The default sits below every standard plan's per-minute figure, so the ban is reached before
   * the usage plan's burst (twice the per-minute figure) throttles the key at the edge, where the
   * functions no longer see its requests.
   */
  RATE_LIMIT_BAN_THRESHOLD: v.optional(WholeNumber, '50'),
  /** Length of a ban, seconds (15 minutes). */
  RATE_LIMIT_BAN_SECONDS: v.optional(WholeNumber, '900'),
  /**
   * Milliseconds a request waits for the rate limiter before it is admitted uncounted: a slow
   * counters table fails open, as one that errors does, and never uses up the time the operation
   * needs for its own store.
   */
  RATE_LIMIT_DEADLINE_MS: v.optional(WholeNumber, '5000'),
  /** Deployment stage, the `stage` dimension of every metric. */
  PETSTORE_STAGE: v.optional(Text, 'local'),
  /** Cursor signing key of the local stack and tests. */
  CURSOR_KEY: v.optional(Text),
  /** Secrets Manager secret holding the cursor signing key (deployed stages). */
  CURSOR_KEY_SECRET_ARN: v.optional(Text),
  /** Port of the AWS Parameters and Secrets Lambda Extension that reads it (deployed stages). */
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: v.optional(Port, '2773'),
  /** Session token of the function's role (Lambda sets it), which the extension asks for. */
  AWS_SESSION_TOKEN: v.optional(Text),
  /** Port of the local gateway. */
  PORT: v.optional(Port, '3000'),
  /** Port of DynamoDB Local in the local stack. */
  DYNAMODB_PORT: v.optional(Port, '8000'),
  /** Directory of the local stack's files (data, credentials, cursor key). */
  PETSTORE_DIR: v.optional(Text),
});

/** The settings, parsed: numbers as numbers, defaults filled in. */
export type Settings = v.InferOutput<typeof SettingsSchema>;

/** Name of a setting: its environment variable. */
export type SettingName = keyof Settings;

/** The settings that name a table, e.g. `PETS_TABLE_NAME`. */
export type TableNameSetting = Extract<SettingName, `${string}_TABLE_NAME`>;

/**
 * Reads every setting from `env`.
 *
 * @throws Error naming each variable that is set to an invalid value, e.g.
 *   `Environment variable RATE_LIMIT_BAN_SECONDS must be a whole number >= 1, not "1.5"`.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const result = v.safeParse(SettingsSchema, withoutEmpty(env));
  if (result.success) return result.output;
  throw new Error(result.issues.map((issue) => describe(issue, env)).join('\n'));
}

/**
 * Reads one setting from `env` with its entry of {@link SettingsSchema}, for a module that needs
 * only that one (the metrics' stage, the local stack's ports).
 *
 * @throws Error naming the variable when it is set to an invalid value.
 */
export function readSetting<N extends SettingName>(
  name: N,
  env: NodeJS.ProcessEnv = process.env,
): Settings[N] {
  return readSettings({ [name]: env[name] })[name];
}

/**
 * A setting that the schema leaves optional but a component needs (a table's name).
 *
 * @throws Error naming the variable when it is unset or empty.
 */
export function requiredSetting<N extends SettingName>(
  settings: Settings,
  name: N,
): NonNullable<Settings[N]> {
  const value = settings[name];
  if (value === undefined) throw new Error(`Environment variable ${name} is required`);
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
