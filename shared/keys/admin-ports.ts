/** The key service's ports (key-service.ts); their adapters: shared/dynamodb/, shared/apigateway/. */
import type {
  AuditContext,
  AuditEntry,
  AuditPage,
  AuditPageQuery,
  AuditWindow,
} from '../audit/entry.ts';
import type { KeyCounts } from '../rate-limit/decision.ts';
import type { BanState, DayUsage } from '../rate-limit/key-status.ts';
import type {
  ApiKeyRecord,
  IssuedKey,
  KeyChange,
  KeyTokens,
  KeyUpdate,
  ListedKey,
} from './key-records.ts';
import type { UndoSteps } from './undo.ts';

/** A restore's put of an item, only while the live one is still `expected` (none: absent). */
export interface ItemWrite {
  readonly item: Readonly<Record<string, unknown>>;
  readonly expected?: Readonly<Record<string, unknown>>;
}

/** How a restore's writes ended: written, or refused because the live table changed. */
export type RestoreOutcome = 'written' | 'changed';

/** What a page of keys is asked for with (listPets's paging: docs/api.md). */
export interface KeysPageQuery {
  /** Most keys on the page, 1 to 100. */
  readonly limit: number;
  /** The cursor the page before gave. @default - the first page */
  readonly cursor?: string;
  /** Only this owner's keys, oldest first. @default - every key, in the table's order */
  readonly owner?: string;
}

/** A page of keys, and the cursor of the next page when more follow. */
export interface KeysPage<Key = ListedKey> {
  readonly keys: Key[];
  readonly cursor?: string;
}

/** The keys table as the key service changes it: each change with its entry, guarded as read. */
export interface AuditedKeyStore {
  /** The key's live tokens, strongly consistent; `undefined`: no such key. @throws KeyChangedError */
  tokensOf(keyId: string): Promise<KeyTokens | undefined>;
  /**
   * A page of keys, each with until when the old token of a rolled key works.
   * @throws InvalidListCursorError for a cursor the store did not give.
   */
  listKeys(query: KeysPageQuery): Promise<KeysPage>;
  /**
   * The key each of `tokens` belongs to, as its token's row holds it, by token hash (missing: no
   * key has it); strongly consistent, in batches. @throws StoreUnavailableError
   */
  findByTokens(
    tokens: readonly string[],
    options?: { readonly signal?: AbortSignal },
  ): Promise<Map<string, ApiKeyRecord>>;
  /** How many active keys (issued, not revoked) the account `owner` holds. */
  activeKeys(owner: string): Promise<number>;
  /**
   * Stores a key made by `newKey` with its `key.created` entry; a key of an account (`owner`
   * `cognito:<sub>`) among the account's active keys, with `maxActiveKeys` only while it holds
   * fewer.
   * @throws KeyLimitReachedError when the account holds `maxActiveKeys` already.
   */
  storeKey(
    issued: IssuedKey,
    context: AuditContext,
    options?: { readonly maxActiveKeys?: number },
  ): Promise<void>;
  /**
   * Makes `update` on every token of the key read as `read`, with its entry (none when no recorded
   * field changes); after a concurrent change, on the key read again (with `asRead`: only if the
   * attributes it replaces still hold what `read` held).
   * @throws KeyChangedError when they changed (`asRead`), or changes keep cancelling it.
   */
  changeKey(
    read: KeyTokens,
    update: KeyUpdate,
    context: AuditContext,
    options?: { readonly asRead?: boolean },
  ): Promise<KeyChange>;
  /** Replaces the tokens read as `read` with a roll's (`rolledKey`). @throws KeyChangedError */
  rollKey(
    read: KeyTokens,
    after: { readonly tokens: KeyTokens; readonly graceUntil?: string },
    context: AuditContext,
  ): Promise<void>;
  /** Puts a restore's items of a key back with its `key.restored` entry, all or none. */
  restoreKey(
    keyId: string,
    writes: readonly ItemWrite[],
    context: AuditContext,
  ): Promise<RestoreOutcome>;
}

/** The audit trail's reads. */
export interface AuditReader {
  /** A key's entries, oldest first. */
  history(keyId: string): Promise<AuditEntry[]>;
  /**
   * A page of the stage's entries in a window, oldest first.
   * @throws InvalidAuditWindowError; InvalidListCursorError
   */
  window(window: AuditWindow, page: AuditPageQuery): Promise<AuditPage>;
}

/** The counters table's bans, as an operator lifts them. */
export interface BanAdministration {
  /** The key's ban in force at `nowMs` (epoch ms), or `undefined`. */
  banState(keyId: string, nowMs: number): Promise<BanState | undefined>;
  /** Lifts the key's ban with its `key.unbanned` entry; `undefined`: none (nothing written). */
  unban(keyId: string, nowMs: number, context: AuditContext): Promise<BanState | undefined>;
}

/** The counters table's daily usage per key. */
export interface UsageReader {
  /** Per key id, `days` days up to the one holding `nowMs`, newest first. */
  dailyUsage(
    keyIds: readonly string[],
    days: number,
    nowMs: number,
    spreadKeyIds?: ReadonlySet<string>,
  ): Promise<Map<string, DayUsage[]>>;
  /**
   * One key's `days` days up to the one holding `nowMs`, newest first, and its counts now (this
   * minute's and today's, summed over regions and shards), from the same reads.
   * @param spread Whether the key may have counted on shards (an Enterprise key).
   */
  keyUsage(
    keyId: string,
    days: number,
    nowMs: number,
    spread: boolean,
  ): Promise<{ days: DayUsage[]; now: KeyCounts }>;
}

/** The API Gateway steps a key change reports, in API Gateway's terms (docs/admin-openapi.yaml). */
export const API_GATEWAY_STEPS = [
  'createApiKey',
  'createUsagePlan',
  'updateUsagePlan',
  'addToUsagePlan',
  'removeFromUsagePlan',
  'deleteUsagePlan',
  'disableApiKey',
] as const;
export type ApiGatewayStepName = (typeof API_GATEWAY_STEPS)[number];

/**
 * How a step ended: `done`; `failed` (only steps after the keys table's change, which stands:
 * deleting a left own usage plan, disabling a revoked key's API key); `notFound` (disableApiKey:
 * no API key is named after the key, so there is nothing to disable).
 */
export const API_GATEWAY_OUTCOMES = ['done', 'failed', 'notFound'] as const;
export type ApiGatewayOutcome = (typeof API_GATEWAY_OUTCOMES)[number];

/** One step of a key change on one region's API Gateway. */
export interface ApiGatewayStep {
  readonly region: string;
  readonly step: ApiGatewayStepName;
  readonly outcome: ApiGatewayOutcome;
  /** The API key's id (API Gateway's, not the key id), when the step is about one. */
  readonly apiKeyId?: string;
  readonly usagePlanId?: string;
  /** createUsagePlan: the new usage plan's name, e.g. `petstore-staging-enterprise-key_…`. */
  readonly usagePlanName?: string;
  /** A failed step's error, as API Gateway's client threw it (`code`: its name). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** API Gateway's part of a key change, as the admin API answers it. */
export interface ApiGatewaySteps {
  /** Home first; none on the local stack or for a change API Gateway does not hold (expiry, scopes). */
  readonly regions: readonly string[];
  /** In the order taken. */
  readonly steps: readonly ApiGatewayStep[];
}

/**
 * A stage's API Gateway API keys and usage plans, as the key service changes them; each method
 * records the undo of every step it made in `undo` before a later step can fail.
 */
export interface ApiKeyGateway {
  /** The regions it changes, home first. */
  regions(): Promise<string[]>;
  /**
   * Creates the key's API key (value: its usage identifier) in its plan's usage plan, an
   * Enterprise key's own. @returns createApiKey, createUsagePlan (Enterprise), addToUsagePlan.
   */
  register(record: ApiKeyRecord, undo: UndoSteps): Promise<ApiGatewayStep[]>;
  /**
   * Moves the key's API key into the usage plan of `next`'s plan.
   * @returns The steps taken, and what to run once the stored plan changed too (deleting an own
   *   usage plan the key left: its step, `failed` when API Gateway refused; none for nothing to do).
   * @throws ApiGatewayStepError when there is not exactly one API key named after the key.
   */
  moveToPlan(
    previous: ApiKeyRecord,
    next: ApiKeyRecord,
    undo: UndoSteps,
  ): Promise<{ steps: ApiGatewayStep[]; afterStored: () => Promise<ApiGatewayStep[]> }>;
  /** Disables every API key named after the key; never throws (`failed`, `notFound` steps). */
  disable(keyId: string): Promise<ApiGatewayStep[]>;
}
