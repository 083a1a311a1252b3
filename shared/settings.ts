/** Every setting of the functions and the local stack, read and checked once at start-up. */
import * as v from 'valibot';

const Text = v.pipe(v.string(), v.nonEmpty());

const WholeNumber = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a whole number >= 1'),
  v.transform(Number),
  v.minValue(1, 'must be a whole number >= 1'),
);

const Port = v.pipe(
  v.string(),
  v.regex(/^[0-9]+$/, 'must be a port number from 0 to 65535'),
  v.transform(Number),
  v.maxValue(65_535, 'must be a port number from 0 to 65535'),
);

/** Every setting by variable name, defaults as text. Each function gets only its own tables. */
export const SettingsSchema = v.object({
  /** Tables' names (dynamodb/tables.ts). */
  PETS_TABLE_NAME: v.optional(Text),
  KEYS_TABLE_NAME: v.optional(Text),
  COUNTERS_TABLE_NAME: v.optional(Text),
  IDEMPOTENCY_TABLE_NAME: v.optional(Text),
  AUDIT_TABLE_NAME: v.optional(Text),
  /** Days an audit entry is kept (the stage's `auditRetentionDays`; docs/operations.md). */
  AUDIT_RETENTION_DAYS: v.optional(WholeNumber, '400'),
  /**
   * The admin functions on a stage: the stack's name, its public RestApi and each standard plan's
   * usage plan, in which they manage keys' API Gateway API keys; unset on the local stack.
   */
  PETSTORE_STACK_NAME: v.optional(Text),
  /**
   * The admin functions on a stage of several regions: each region's stack name, separated by
   * commas in `PETSTORE_REGIONS`' order, whose usage plans they find by name.
   */
  PETSTORE_REGION_STACKS: v.optional(Text),
  PUBLIC_REST_API_ID: v.optional(Text),
  USAGE_PLAN_ID_FREE: v.optional(Text),
  USAGE_PLAN_ID_PRO: v.optional(Text),
  USAGE_PLAN_ID_BUSINESS: v.optional(Text),
  /** URL of DynamoDB Local, e.g. `http://127.0.0.1:8000`; unset on AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** The home region's DynamoDB Local, for another region's leaked-key endpoint; unset on AWS. */
  HOME_DYNAMODB_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** GitHub's secret scanning public keys (the leaked-key endpoint; a stage setting). */
  SECRET_SCANNING_KEYS_URL: v.optional(
    v.pipe(Text, v.url('must be a URL')),
    'https://api.github.com/meta/public_keys/secret_scanning',
  ),
  /** URL of the local stack's event bus (infra/local/event-bus.ts); unset on AWS. */
  EVENTBRIDGE_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /**
   * The function's region (Lambda's; on the local stack its region's) and the credentials of
   * DynamoDB Local (on AWS: the default chain). DynamoDB Local's clients sign for `LOCAL_REGION`.
   */
  AWS_REGION: v.optional(Text),
  AWS_ACCESS_KEY_ID: v.optional(Text),
  AWS_SECRET_ACCESS_KEY: v.optional(Text),
  /**
   * The stage's regions, home first, separated by commas (`regionsOf`; docs/architecture.md,
   * "Regions"); unset or one: as before 2.0. A region keeps its place, which its items' keys name.
   */
  PETSTORE_REGIONS: v.optional(Text),
  /** Refused requests a key may send in one UTC minute before a ban (docs/rate-limits.md). */
  RATE_LIMIT_BAN_THRESHOLD: v.optional(WholeNumber, '50'),
  /** Length of a ban, seconds (15 minutes). */
  RATE_LIMIT_BAN_SECONDS: v.optional(WholeNumber, '900'),
  /** Milliseconds a request waits for the rate limiter, then is admitted uncounted. */
  RATE_LIMIT_DEADLINE_MS: v.optional(WholeNumber, '5000'),
  /** Deployment stage, the `stage` dimension of every metric. */
  PETSTORE_STAGE: v.optional(Text, 'local'),
  /** Cursor signing key (local stack, tests), or the secret holding it (deployed stages). */
  CURSOR_KEY: v.optional(Text),
  CURSOR_KEY_SECRET_ARN: v.optional(Text),
  /** Port of the Parameters and Secrets Lambda Extension; the role's token it asks for. */
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: v.optional(Port, '2773'),
  AWS_SESSION_TOKEN: v.optional(Text),
  /** Local stack: the gateway's port, DynamoDB Local's, and the directory of its files. */
  PORT: v.optional(Port, '3000'),
  /** Local stack: the admin API's port (a listener of its own, as a host of its own on AWS). */
  ADMIN_PORT: v.optional(Port, '3100'),
  DYNAMODB_PORT: v.optional(Port, '8000'),
  PETSTORE_DIR: v.optional(Text),
  /** Local stack with `--regions`: milliseconds before a write reaches the other regions. */
  REPLICATION_LAG_MS: v.optional(WholeNumber, '500'),
});

/** The settings, parsed: numbers as numbers, defaults filled in. */
export type Settings = v.InferOutput<typeof SettingsSchema>;

/** Name of a setting: its environment variable. */
export type SettingName = keyof Settings;

/** The settings that name a table, e.g. `PETS_TABLE_NAME`. */
export type TableNameSetting = Extract<SettingName, `${string}_TABLE_NAME`>;

/**
 * Reads every setting from `env`.
 * @throws Error naming each variable that is set to an invalid value, e.g.
 *   `Environment variable RATE_LIMIT_BAN_SECONDS must be a whole number >= 1, not "1.5"`.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const result = v.safeParse(SettingsSchema, withoutEmpty(env));
  if (result.success) return result.output;
  throw new Error(result.issues.map((issue) => describe(issue, env)).join('\n'));
}

/** Reads one setting from `env`. @throws Error naming the variable when its value is invalid. */
export function readSetting<N extends SettingName>(
  name: N,
  env: NodeJS.ProcessEnv = process.env,
): Settings[N] {
  return readSettings({ [name]: env[name] })[name];
}

/**
 * A setting the schema leaves optional but a component needs (a table's name).
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
