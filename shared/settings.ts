/** Every setting: every function's (function-settings.ts), the admin functions', the local stack's. */
import * as v from 'valibot';
import {
  FunctionSettingsSchema,
  Port,
  parseSettings,
  Text,
  WholeNumber,
} from './function-settings.ts';

export { requiredSetting } from './function-settings.ts';

/** Every setting by variable name, defaults as text. */
export const SettingsSchema = v.object({
  ...FunctionSettingsSchema.entries,
  /** Days an audit entry is kept (the stage's `auditRetentionDays`; docs/operations.md). */
  AUDIT_RETENTION_DAYS: v.optional(WholeNumber, '400'),
  /** The admin functions on a stage: its stack, RestApi and usage plans; unset on the local stack. */
  PETSTORE_STACK_NAME: v.optional(Text),
  /** With several regions: each region's stack, comma-separated in `PETSTORE_REGIONS`' order. */
  PETSTORE_REGION_STACKS: v.optional(Text),
  PUBLIC_REST_API_ID: v.optional(Text),
  USAGE_PLAN_ID_FREE: v.optional(Text),
  USAGE_PLAN_ID_PRO: v.optional(Text),
  USAGE_PLAN_ID_BUSINESS: v.optional(Text),
  /** The home region's DynamoDB Local, for another region's leaked-key endpoint; unset on AWS. */
  HOME_DYNAMODB_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** GitHub's secret scanning public keys (the leaked-key endpoint; a stage setting). */
  SECRET_SCANNING_KEYS_URL: v.optional(
    v.pipe(Text, v.url('must be a URL')),
    'https://api.github.com/meta/public_keys/secret_scanning',
  ),
  /** URL of the local stack's event bus (infra/local/event-bus.ts); unset on AWS. */
  EVENTBRIDGE_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** Local stack: the gateway's port, DynamoDB Local's, and the directory of its files. */
  PORT: v.optional(Port, '3000'),
  /** Local stack: the admin API's port (a listener of its own, as a host of its own on AWS). */
  ADMIN_PORT: v.optional(Port, '3100'),
  DYNAMODB_PORT: v.optional(Port, '8000'),
  /** Local stack: the developer portal's port, its OpenID provider's and the portal API's. */
  PORTAL_PORT: v.optional(Port, '3200'),
  PORTAL_AUTH_PORT: v.optional(Port, '3300'),
  PORTAL_API_PORT: v.optional(Port, '3400'),
  PETSTORE_DIR: v.optional(Text),
  /** Local stack with `--regions`: milliseconds before a write reaches the other regions. */
  REPLICATION_LAG_MS: v.optional(WholeNumber, '500'),
  /** URL of the local stack's stand-in for Cognito's API (AdminDeleteUser); unset on AWS. */
  COGNITO_ENDPOINT: v.optional(v.pipe(Text, v.url('must be a URL'))),
  /** The portal API's functions: the user pool, its client, CORS, limits (docs/operations.md). */
  PORTAL_ISSUER: v.optional(v.pipe(Text, v.url('must be a URL'))),
  PORTAL_JWKS_URI: v.optional(v.pipe(Text, v.url('must be a URL'))),
  PORTAL_CLIENT_ID: v.optional(Text),
  PORTAL_USER_POOL_ID: v.optional(Text),
  PORTAL_ORIGIN: v.optional(v.pipe(Text, v.url('must be a URL'))),
  PORTAL_KEY_LIMIT: v.optional(WholeNumber, '5'),
  PORTAL_ENTERPRISE_CONTACT_URL: v.optional(
    v.pipe(Text, v.url('must be a URL')),
    'mailto:sales@example.com',
  ),
});

export type Settings = v.InferOutput<typeof SettingsSchema>;

export type SettingName = keyof Settings;

/** The settings that name a table, e.g. `PETS_TABLE_NAME`. */
export type TableNameSetting = Extract<SettingName, `${string}_TABLE_NAME`>;

/** Reads every setting from `env`. @throws Error naming each invalid variable. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return parseSettings(SettingsSchema, env);
}

/** Reads one setting from `env`. @throws Error naming the variable when its value is invalid. */
export function readSetting<N extends SettingName>(
  name: N,
  env: NodeJS.ProcessEnv = process.env,
): Settings[N] {
  return readSettings({ [name]: env[name] })[name];
}
