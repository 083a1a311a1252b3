/** API keys as their tokens hold them, and the rules every key store applies to them. */
import { randomBytes } from 'node:crypto';
import {
  InvalidLimitsError,
  isStandardPlanId,
  limitsOfPlan,
  type PlanId,
  planName,
  type RequestLimits,
} from '../plans.ts';
import { KeyRevokedError } from './key-errors.ts';
import { keyScopes, SCOPES, type Scope } from './scopes.ts';
import { generateToken, hashToken, type TokenStage } from './token.ts';

/** A key as one of its tokens holds it: all but `keyHash` and `graceUntil` are the key's own. */
export interface ApiKeyRecord {
  /** SHA-256 of the bearer token, lower-case hex (partition key). */
  keyHash: string;
  /** Public id of the key, `key_` + 16 hex digits; safe to log and show. */
  keyId: string;
  plan: PlanId;
  /** Requests per UTC minute: set for Enterprise keys only (standard plans read `PLANS`). */
  perMinute?: number;
  /** Requests per UTC day: set for Enterprise keys only. */
  perDay?: number;
  /** Who holds the key: free text, or an account of the portal's user pool (`cognito:<sub>`). */
  owner?: string;
  /** What its holder calls the key (the portal's keys have one). */
  name?: string;
  /** What the key may call (`keyScopes`: `pets:write` comes with `pets:read`). */
  scopes: Scope[];
  /** Value of the key's API Gateway API key (the usage identifier), not the bearer token. */
  usageIdentifier: string;
  /** ISO 8601 time of issue. */
  createdAt: string;
  /** ISO 8601 time of revocation; a revoked key is refused. */
  revokedAt?: string;
  /** ISO 8601 time from which the key is refused; none: it never expires. */
  expiresAt?: string;
  /** On the old token of a rolled key only: ISO 8601 time from which this token is refused. */
  graceUntil?: string;
}

/** A key as its current token holds it, and while a roll's grace lasts, when its old token ends. */
export interface ListedKey extends ApiKeyRecord {
  readonly oldTokenUntil?: string;
}

/** A key with a token just issued for it; the token is shown once and stored nowhere. */
export interface IssuedKey {
  readonly record: ApiKeyRecord;
  readonly token: string;
}

/** A key rolled to a new token; its old token is refused from `graceUntil` (ISO 8601; none: now). */
export interface RolledKey extends IssuedKey {
  readonly graceUntil?: string;
}

/** A key before and after a change. */
export interface KeyChange {
  readonly previous: ApiKeyRecord;
  readonly record: ApiKeyRecord;
}

/** Why the authorizer refuses a stored key at a given time. */
export type KeyRefusal = 'revoked' | 'expired' | 'rolled';

/** Why the key refuses this token at `nowMs` (epoch ms), or `undefined` when it is valid. */
export function keyRefusal(
  record: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt' | 'graceUntil'>,
  nowMs: number,
): KeyRefusal | undefined {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && Date.parse(record.expiresAt) <= nowMs) return 'expired';
  if (record.graceUntil && Date.parse(record.graceUntil) <= nowMs) return 'rolled';
  return undefined;
}

/**
 * The request limits of a key: its plan's, or its own for Enterprise.
 * @throws InvalidLimitsError for an Enterprise record without valid limits.
 */
export function limitsOfKey(
  record: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>,
): RequestLimits {
  return limitsOfPlan(record.plan, record);
}

/**
 * The limits to store on a key of `plan`: Enterprise's own, checked; none for a standard plan.
 * @throws InvalidLimitsError for Enterprise without valid limits, or a standard plan with limits.
 */
export function customLimits(
  plan: PlanId,
  limits: Partial<RequestLimits> | undefined,
): RequestLimits | undefined {
  if (!isStandardPlanId(plan)) return limitsOfPlan(plan, limits);
  if (limits) {
    throw new InvalidLimitsError(
      `a ${planName(plan)} key has its plan's limits; only an Enterprise key has its own`,
    );
  }
  return undefined;
}

/** What {@link newKey} issues a key from. */
export interface NewKeyInput {
  readonly plan: PlanId;
  readonly owner?: string;
  /** What its holder calls the key. @default - none */
  readonly name?: string;
  /** An Enterprise key's own limits (required for Enterprise, refused otherwise). */
  readonly limits?: RequestLimits;
  /** ISO 8601 time from which the key is refused. @default - never */
  readonly expiresAt?: string;
  /** What the key may call. @default SCOPES (every scope) */
  readonly scopes?: readonly Scope[];
  /** The stage whose prefix the token carries. @default 'local' */
  readonly tokenStage?: TokenStage;
}

/**
 * A new key and its bearer token (fresh id, token and usage identifier).
 * @throws InvalidLimitsError (see `customLimits`); InvalidScopesError for no scope.
 */
export function newKey(input: NewKeyInput): IssuedKey {
  const limits = customLimits(input.plan, input.limits);
  const scopes = keyScopes(input.scopes ?? SCOPES);
  const token = generateToken(input.tokenStage);
  const record: ApiKeyRecord = {
    keyHash: hashToken(token),
    keyId: `key_${randomBytes(8).toString('hex')}`,
    plan: input.plan,
    ...limits,
    owner: input.owner,
    ...(input.name !== undefined && { name: input.name }),
    scopes,
    usageIdentifier: randomBytes(24).toString('base64url'),
    createdAt: new Date().toISOString(),
    ...(input.expiresAt && { expiresAt: input.expiresAt }),
  };
  return { record, token };
}

function withPlan(
  record: ApiKeyRecord,
  plan: PlanId,
  own: RequestLimits | undefined,
): ApiKeyRecord {
  const { perMinute: _perMinute, perDay: _perDay, ...rest } = record;
  return { ...rest, plan, ...own };
}

function withScopes(record: ApiKeyRecord, scopes: readonly Scope[]): ApiKeyRecord {
  return { ...record, scopes: keyScopes(scopes) };
}

function withRevocation(record: ApiKeyRecord, at: string): ApiKeyRecord {
  return { ...record, revokedAt: record.revokedAt ?? at };
}

function withExpiry(record: ApiKeyRecord, expiresAt: string | undefined): ApiKeyRecord {
  const { expiresAt: _expiresAt, ...rest } = record;
  return { ...rest, ...(expiresAt && { expiresAt }) };
}

/**
 * A change to every token of a key, named by the event that records it: a plan with an Enterprise
 * key's own limits (as `customLimits` returned them), scopes, an expiry (none: never) or a
 * revocation at `at` (ISO 8601; a revoked key keeps its first time).
 */
export type KeyUpdate =
  | { readonly event: 'key.plan_changed'; readonly plan: PlanId; readonly limits?: RequestLimits }
  | { readonly event: 'key.scope_changed'; readonly scopes: readonly Scope[] }
  | { readonly event: 'key.expiry_set'; readonly expiresAt?: string }
  | { readonly event: 'key.revoked'; readonly at: string };

/** `record` after `update`. */
export function updatedKey(record: ApiKeyRecord, update: KeyUpdate): ApiKeyRecord {
  switch (update.event) {
    case 'key.plan_changed':
      return withPlan(record, update.plan, update.limits);
    case 'key.scope_changed':
      return withScopes(record, update.scopes);
    case 'key.expiry_set':
      return withExpiry(record, update.expiresAt);
    case 'key.revoked':
      return withRevocation(record, update.at);
  }
}

/** Whether `record` is its key's current token, not a roll's old one. */
function isCurrentToken(record: Pick<ApiKeyRecord, 'graceUntil'>): boolean {
  return record.graceUntil === undefined;
}

/** The keys that `tokens` hold, oldest first, each with the end of its old token's grace. */
export function listedKeys(tokens: readonly ApiKeyRecord[]): ListedKey[] {
  const graces = new Map(
    tokens.flatMap(({ keyId, graceUntil }) => (graceUntil ? [[keyId, graceUntil] as const] : [])),
  );
  return tokens
    .filter(isCurrentToken)
    .map((record) => {
      const oldTokenUntil = graces.get(record.keyId);
      return oldTokenUntil ? { ...record, oldTokenUntil } : record;
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** A key's live tokens, each holding the key: the current one and, during a roll's grace, an old. */
export interface KeyTokens {
  readonly current: ApiKeyRecord;
  readonly old?: ApiKeyRecord;
}

/**
 * A key rolled from `current`: the new token, and the key's tokens after the roll, `current` the
 * old one until `graceUntil`. @throws KeyRevokedError for a revoked key.
 */
export function rolledKey(
  current: ApiKeyRecord,
  options: { graceSeconds: number; tokenStage?: TokenStage },
): { token: string; graceUntil?: string; tokens: KeyTokens } {
  if (current.revokedAt) throw new KeyRevokedError(current.keyId);
  const token = generateToken(options.tokenStage);
  const graceUntil =
    options.graceSeconds > 0
      ? new Date(Date.now() + options.graceSeconds * 1000).toISOString()
      : undefined;
  const next = { ...current, keyHash: hashToken(token) };
  return {
    token,
    graceUntil,
    tokens: { current: next, ...(graceUntil && { old: { ...current, graceUntil } }) },
  };
}
