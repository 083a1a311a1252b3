/** Valibot schemas of the admin API's bodies (strict, never an actor) and parameters (docs/admin-openapi.yaml). */
import * as v from 'valibot';
import { AUDIT_EVENTS } from '../audit/entry.ts';
import { PAGE_QUERY_ENTRIES } from '../paging.ts';
import { ALL_PLAN_IDS, MAX_PER_DAY, MAX_PER_MINUTE } from '../plans.ts';
import { RETENTION_DAYS } from '../rate-limit/counter-item.ts';
import { SCOPES } from './scopes.ts';

/** A key's public id: `key_` and 16 lower-case hex digits. */
export const KeyIdSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^key_[0-9a-f]{16}$/, 'must be key_ followed by 16 lower-case hex digits'),
);

/** Longest grace of a roll's old token: 30 days, in seconds. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

/** Default grace of a roll's old token: 24 hours, in seconds. */
export const DEFAULT_GRACE_SECONDS = 86_400;

export const MAX_REASON_LENGTH = 500;

const MAX_OWNER_LENGTH = 200;

/** Characters that would break the one-line-per-key listing or a terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/** An ISO 8601 time with its offset, normalised to UTC with milliseconds. */
const InstantSchema = v.pipe(
  v.string('must be a string'),
  v.isoTimestamp('must be an ISO 8601 time with an offset, e.g. 2027-01-01T00:00:00Z'),
  v.transform((text) => new Date(text).toISOString()),
);

/** An expiry: an instant in the future (`--expires-in` bounds its own durations to ten years). */
const ExpirySchema = v.pipe(
  InstantSchema,
  v.check((at) => Date.parse(at) > Date.now(), 'must be in the future'),
);

/** Why the change is made, recorded in its audit entry. */
const ReasonSchema = v.pipe(
  v.string('must be a string'),
  v.nonEmpty('must not be empty'),
  v.maxLength(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`),
  v.check((text) => !CONTROL_CHARACTERS.test(text), 'must not contain control characters'),
);

const PlanSchema = v.picklist(ALL_PLAN_IDS, `must be one of ${ALL_PLAN_IDS.join(', ')}`);

/** An Enterprise key's own limits (whether the plan takes them is the rule of `customLimits`). */
const LimitsSchema = v.strictObject({
  perMinute: v.pipe(
    v.number('must be an integer'),
    v.integer('must be an integer'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(MAX_PER_MINUTE, `must be at most ${MAX_PER_MINUTE}`),
  ),
  perDay: v.pipe(
    v.number('must be an integer'),
    v.integer('must be an integer'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(MAX_PER_DAY, `must be at most ${MAX_PER_DAY}`),
  ),
});

/** A key's scopes: at least one (`pets:write` includes `pets:read`). */
const ScopesSchema = v.pipe(
  v.array(v.picklist(SCOPES, `must be one of ${SCOPES.join(', ')}`), 'must be an array'),
  v.minLength(1, 'must hold at least one scope'),
);

export const CreateKeyBodySchema = v.strictObject({
  plan: PlanSchema,
  limits: v.optional(LimitsSchema),
  owner: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.regex(/\S/u, 'must contain a non-space character'),
      v.maxLength(MAX_OWNER_LENGTH, `must be at most ${MAX_OWNER_LENGTH} characters`),
      v.check((text) => !CONTROL_CHARACTERS.test(text), 'must not contain control characters'),
    ),
  ),
  expiresAt: v.optional(ExpirySchema),
  scopes: v.optional(ScopesSchema),
  reason: v.optional(ReasonSchema),
});

export const RollKeyBodySchema = v.strictObject({
  graceSeconds: v.optional(
    v.pipe(
      v.number('must be an integer'),
      v.integer('must be an integer'),
      v.minValue(0, 'must be at least 0'),
      v.maxValue(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (30 days)`),
    ),
    DEFAULT_GRACE_SECONDS,
  ),
  reason: v.optional(ReasonSchema),
});

/** Body of setKeyExpiry: `expiresAt` null for never. */
export const SetExpiryBodySchema = v.strictObject({
  expiresAt: v.nullable(ExpirySchema),
  reason: v.optional(ReasonSchema),
});

export const SetPlanBodySchema = v.strictObject({
  plan: PlanSchema,
  limits: v.optional(LimitsSchema),
  reason: v.optional(ReasonSchema),
});

export const SetScopesBodySchema = v.strictObject({
  scopes: ScopesSchema,
  reason: v.optional(ReasonSchema),
});

/** Body of revokeKey and unbanKey. */
export const ReasonBodySchema = v.strictObject({ reason: v.optional(ReasonSchema) });

/** Query of getKeyUsage: `days`, 1 to `RETENTION_DAYS` (default 7). */
export const UsageQuerySchema = v.object({
  days: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]+$/, `must be a whole number from 1 to ${RETENTION_DAYS}`),
      v.transform(Number),
      v.minValue(1, `must be a whole number from 1 to ${RETENTION_DAYS}`),
      v.maxValue(RETENTION_DAYS, `must be a whole number from 1 to ${RETENTION_DAYS}`),
    ),
    '7',
  ),
});

/** Query of listKeys: `limit`, `cursor` and `owner` (only that owner's keys, oldest first). */
export const ListKeysQuerySchema = v.object({
  ...PAGE_QUERY_ENTRIES,
  owner: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
});

/**
 * Query of listAuditEntries: `since` required, `until` (default now), `actor`, `event`, and the
 * page's `limit` and `cursor`.
 */
export const AuditQuerySchema = v.object({
  ...PAGE_QUERY_ENTRIES,
  since: InstantSchema,
  until: v.optional(InstantSchema),
  actor: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
  event: v.optional(v.picklist(AUDIT_EVENTS, `must be one of ${AUDIT_EVENTS.join(', ')}`)),
});
