/**
 * The key service: every change to a key, whichever door, with the rules of keys once; a change
 * reads the key once and writes its audit entry in its own transaction, after API Gateway's steps
 * (docs/architecture.md, "The key service"; docs/operations.md, "The admin API").
 */
import type {
  AuditContext,
  AuditEntry,
  AuditPage,
  AuditPageQuery,
  AuditWindow,
} from '../audit/entry.ts';
import { ENTERPRISE_PLAN, type PlanId, planName, type RequestLimits } from '../plans.ts';
import { RETENTION_DAYS } from '../rate-limit/counter-item.ts';
import {
  type BanState,
  type DayUsage,
  type KeyUsageNow,
  lastUsedDay,
  windowsNow,
} from '../rate-limit/key-status.ts';
import { ownerScopeOf } from './accounts.ts';
import type {
  ApiGatewayStep,
  ApiGatewaySteps,
  ApiKeyGateway,
  AuditedKeyStore,
  AuditReader,
  BanAdministration,
  ItemWrite,
  KeysPage,
  KeysPageQuery,
  RestoreOutcome,
  UsageReader,
} from './admin-ports.ts';
import { KeyNotFoundError, KeyRevokedError } from './key-errors.ts';
import {
  type ApiKeyRecord,
  customLimits,
  type KeyTokens,
  type KeyUpdate,
  limitsOfKey,
  type NewKeyInput,
  newKey,
  type RolledKey,
  rolledKey,
  updatedKey,
} from './key-records.ts';
import { keyScopes, type Scope } from './scopes.ts';
import {
  type KeyStatus,
  keyStatuses,
  type ShownChange,
  type ShownKey,
  shownChange,
  shownKey,
} from './shown-key.ts';
import { mayBeKeyOf, type TokenStage } from './token.ts';
import { stepFailed, UndoSteps, undoneAfter } from './undo.ts';

/** What the key service runs on: the stage's tables and, on a stage, its API Gateway API keys. */
export interface KeyServicePorts {
  readonly keys: AuditedKeyStore;
  readonly audit: AuditReader;
  readonly bans: BanAdministration;
  readonly usage: UsageReader;
  /** `tokenStageOf(PETSTORE_STAGE)`. */
  readonly tokenStage: TokenStage;
  /** @default - none: the local stack, no API keys */
  readonly apiGateway?: ApiKeyGateway;
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** The key service of a stage (or the local stack); an account acts on its own keys only. */
export class KeyService {
  private readonly now: () => number;

  constructor(private readonly ports: KeyServicePorts) {
    this.now = ports.now ?? (() => Date.now());
  }

  /**
   * Issues a key (its token shown once): on a stage its API key first, undone if the transaction of
   * its rows and `key.created` fails; an account's key counts among its active keys (below
   * `maxActiveKeys`). @throws InvalidLimitsError; InvalidScopesError; ApiGatewayStepError;
   * KeyLimitReachedError.
   */
  async createKey(
    input: Omit<NewKeyInput, 'tokenStage'>,
    context: AuditContext,
    options: { readonly maxActiveKeys?: number } = {},
  ): Promise<{ key: ShownKey; token: string; apiGateway: ApiGatewaySteps }> {
    const issued = newKey({ ...input, tokenStage: this.ports.tokenStage });
    const { apiGateway } = this.ports;
    const undo = new UndoSteps();
    const steps = apiGateway
      ? await undo.run(
          () => apiGateway.register(issued.record, undo),
          stepFailed('API Gateway refused the key', 'No key was issued.'),
        )
      : [];
    await undo.run(() => this.ports.keys.storeKey(issued, context, options), undoneAfter);
    return {
      key: shownKey(issued.record),
      token: issued.token,
      apiGateway: await this.apiGatewaySteps(steps),
    };
  }

  /** A page of keys with their bans and last days used. @throws InvalidListCursorError */
  async listKeys(query: KeysPageQuery): Promise<KeysPage<KeyStatus>> {
    const page = await this.ports.keys.listKeys(query);
    return { ...page, keys: await keyStatuses(this.ports, this.now(), page.keys) };
  }

  /** How many active keys (issued, not revoked) the account `owner` holds. */
  async activeKeys(owner: string): Promise<number> {
    return this.ports.keys.activeKeys(owner);
  }

  /**
   * @param owner Only a key of this owner: another's is not found. @default - any key
   * @throws KeyNotFoundError
   */
  async getKey(keyId: string, owner?: string): Promise<KeyStatus> {
    const [status] = await keyStatuses(this.ports, this.now(), [await this.existing(keyId, owner)]);
    return status as KeyStatus;
  }

  /**
   * Issues a new token for the same key; the current token works `graceSeconds` more, an older one
   * ends now (`key.rolled`). @throws KeyNotFoundError; KeyRevokedError; KeyChangedError.
   */
  async rollKey(keyId: string, graceSeconds: number, context: AuditContext): Promise<RolledKey> {
    const read = await this.read(keyId, ownerScopeOf(context.actor));
    const { token, graceUntil, tokens } = rolledKey(read.current, {
      graceSeconds,
      tokenStage: this.ports.tokenStage,
    });
    await this.ports.keys.rollKey(read, { tokens, graceUntil }, context);
    return { record: tokens.current, token, graceUntil };
  }

  /** Sets or removes (`undefined`) a key's expiry; `key.expiry_set`. @throws KeyNotFoundError */
  async setExpiry(
    keyId: string,
    expiresAt: string | undefined,
    context: AuditContext,
  ): Promise<ShownChange> {
    const update = { event: 'key.expiry_set', ...(expiresAt && { expiresAt }) } as const;
    return shownChange(await this.change(keyId, update, context));
  }

  /** Sets what a key may call; `key.scope_changed`. @throws KeyNotFoundError; InvalidScopesError */
  async setScopes(
    keyId: string,
    scopes: readonly Scope[],
    context: AuditContext,
  ): Promise<ShownChange> {
    const update = { event: 'key.scope_changed', scopes: keyScopes(scopes) } as const;
    return shownChange(await this.change(keyId, update, context));
  }

  /**
   * Moves a key to `plan` (Enterprise: with its own `limits`): its API key first, then the keys
   * table's change (`key.plan_changed`) while the plan is as read, else the move is undone.
   * @throws KeyNotFoundError; KeyRevokedError; InvalidLimitsError; KeyChangedError; ApiGatewayStepError.
   */
  async setPlan(
    keyId: string,
    plan: PlanId,
    limits: RequestLimits | undefined,
    context: AuditContext,
  ): Promise<ShownChange> {
    const own = customLimits(plan, limits);
    const read = await this.read(keyId, ownerScopeOf(context.actor));
    const { current } = read;
    if (current.revokedAt) {
      throw new KeyRevokedError(keyId, {
        revokedAt: current.revokedAt,
        rule: 'a revoked key keeps its plan',
      });
    }
    const update = { event: 'key.plan_changed', plan, ...(own && { limits: own }) } as const;
    const { apiGateway } = this.ports;
    const undo = new UndoSteps();
    const moved = apiGateway
      ? await undo.run(
          () => apiGateway.moveToPlan(current, updatedKey(current, update), undo),
          stepFailed(
            'API Gateway refused the move',
            `Key ${keyId} stays on ${planName(current.plan)}.`,
          ),
        )
      : undefined;
    // API Gateway moved the key from the plan read: a retry must find that plan still there.
    const changed = await undo.run(
      () => this.ports.keys.changeKey(read, update, context, { asRead: true }),
      undoneAfter,
    );
    const finished = (await moved?.afterStored()) ?? [];
    return shownChange(changed, await this.apiGatewaySteps([...(moved?.steps ?? []), ...finished]));
  }

  /**
   * Revokes a key ({@link revokeOnRecord}), then disables its API keys (a failure is a `failed`
   * step: the authorizer refuses the key anyway). @throws KeyNotFoundError; KeyChangedError.
   */
  async revokeKey(
    keyId: string,
    context: AuditContext,
  ): Promise<{ key: ShownKey; apiGateway: ApiGatewaySteps }> {
    const { key } = await this.revokeOnRecord(keyId, context);
    const steps = (await this.ports.apiGateway?.disable(keyId)) ?? [];
    return { key, apiGateway: await this.apiGatewaySteps(steps) };
  }

  /**
   * Revokes a key in the keys table (`key.revoked`; again: nothing), API Gateway left as it is.
   * @returns Before and after: `previous.revokedAt` set, it was revoked already.
   */
  async revokeOnRecord(keyId: string, context: AuditContext): Promise<ShownChange> {
    const at = new Date(this.now()).toISOString();
    return shownChange(await this.change(keyId, { event: 'key.revoked', at }, context));
  }

  /** The keys of `tokens` by token hash, in batches; another stage's token is never looked up. */
  async keysOfTokens(
    tokens: readonly string[],
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<Map<string, ApiKeyRecord>> {
    const ours = tokens.filter((token) => mayBeKeyOf(token, this.ports.tokenStage));
    return this.ports.keys.findByTokens(ours, options);
  }

  /** Lifts a key's ban (`key.unbanned`). @returns The ban lifted, or `undefined`. @throws KeyNotFoundError */
  async unbanKey(keyId: string, context: AuditContext): Promise<BanState | undefined> {
    await this.existing(keyId, ownerScopeOf(context.actor));
    return this.ports.bans.unban(keyId, this.now(), context);
  }

  /** A key's requests per UTC day, newest first, for `days` days. @throws KeyNotFoundError */
  async usage(keyId: string, days: number): Promise<{ days: DayUsage[]; lastUsed?: string }> {
    const record = await this.existing(keyId);
    const spread = new Set(record.plan === ENTERPRISE_PLAN.id ? [keyId] : []);
    const kept = await this.ports.usage.dailyUsage([keyId], RETENTION_DAYS, this.now(), spread);
    const daily = kept.get(keyId) ?? [];
    return { days: daily.slice(0, days), lastUsed: lastUsedDay(daily) };
  }

  /**
   * A key's requests per UTC day for `days` days, newest first, and what is left of its limits
   * this minute and today (none this minute while it is banned), from the limiter's counters.
   * @param owner Only a key of this owner: another's is not found. @default - any key
   * @throws KeyNotFoundError.
   */
  async usageNow(keyId: string, days: number, owner?: string): Promise<KeyUsageNow> {
    const record = await this.existing(keyId, owner);
    const nowMs = this.now();
    const spread = record.plan === ENTERPRISE_PLAN.id;
    const usage = await this.ports.usage.keyUsage(keyId, days, nowMs, spread);
    return { days: usage.days, ...windowsNow(usage.now, limitsOfKey(record), nowMs) };
  }

  /**
   * Revokes every key of the account `context.actor` names that is not revoked yet (each with
   * its `key.revoked` entry), page by page of its keys.
   * @returns The ids of the keys revoked now.
   * @throws KeyChangedError.
   */
  async revokeAccountKeys(context: AuditContext): Promise<string[]> {
    const owner = ownerScopeOf(context.actor);
    if (owner === undefined) throw new Error('Only an account actor revokes its own keys');
    const revoked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.ports.keys.listKeys({ owner, limit: 100, cursor });
      for (const key of page.keys.filter((each) => !each.revokedAt)) {
        await this.revokeKey(key.keyId, context);
        revoked.push(key.keyId);
      }
      cursor = page.cursor;
    } while (cursor);
    return revoked;
  }

  /** A key's audit entries, oldest first. @throws KeyNotFoundError for a key never issued. */
  async history(keyId: string): Promise<AuditEntry[]> {
    const entries = await this.ports.audit.history(keyId);
    if (entries.length === 0) await this.existing(keyId);
    return entries;
  }

  /** A page of a window's entries. @throws InvalidAuditWindowError; InvalidListCursorError */
  async auditWindow(window: AuditWindow, page: AuditPageQuery): Promise<AuditPage> {
    return this.ports.audit.window(window, page);
  }

  /** Puts back a key's items as a restore decided them, with their `key.restored` entry. */
  async restoreKey(
    keyId: string,
    writes: readonly ItemWrite[],
    context: AuditContext,
  ): Promise<RestoreOutcome> {
    return this.ports.keys.restoreKey(keyId, writes, context);
  }

  private async apiGatewaySteps(steps: readonly ApiGatewayStep[]): Promise<ApiGatewaySteps> {
    return { regions: (await this.ports.apiGateway?.regions()) ?? [], steps };
  }

  /**
   * The key's live tokens, read once; a key of another owner than `owner` (when given) is not
   * found, exactly as an unknown one. @throws KeyNotFoundError
   */
  private async read(keyId: string, owner?: string): Promise<KeyTokens> {
    const tokens = await this.ports.keys.tokensOf(keyId);
    if (!tokens || (owner !== undefined && tokens.current.owner !== owner)) {
      throw new KeyNotFoundError(keyId);
    }
    return tokens;
  }

  /** @throws KeyNotFoundError (of another owner than `owner`, when given, too) */
  private async existing(keyId: string, owner?: string): Promise<ApiKeyRecord> {
    return (await this.read(keyId, owner)).current;
  }

  /**
   * `update` on the key as read now (an account's own keys only), with its entry.
   * @throws KeyNotFoundError; KeyChangedError
   */
  private async change(keyId: string, update: KeyUpdate, context: AuditContext) {
    const read = await this.read(keyId, ownerScopeOf(context.actor));
    return this.ports.keys.changeKey(read, update, context);
  }
}
