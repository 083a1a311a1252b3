/**
 * The key service: every change to a key, whichever door, with the rules of keys once; a change
 * reads the key once and writes its audit entry in its own transaction, after API Gateway's steps
 * (docs/architecture.md, "The key service"; docs/operations.md, "The admin API").
 */
import type { AuditContext, AuditEntry, AuditWindow } from '../audit/entry.ts';
import { ENTERPRISE_PLAN, type PlanId, planName, type RequestLimits } from '../plans.ts';
import { RETENTION_DAYS } from '../rate-limit/counter-item.ts';
import { type BanState, type DayUsage, lastUsedDay } from '../rate-limit/key-status.ts';
import type {
  ApiGatewayStep,
  ApiGatewaySteps,
  ApiKeyGateway,
  AuditedKeyStore,
  AuditReader,
  BanAdministration,
  ItemWrite,
  RestoreOutcome,
  UsageReader,
} from './admin-ports.ts';
import { KeyNotFoundError, KeyRevokedError } from './key-errors.ts';
import {
  type ApiKeyRecord,
  customLimits,
  type KeyChange,
  type KeyTokens,
  type KeyUpdate,
  type ListedKey,
  type NewKeyInput,
  newKey,
  type RolledKey,
  rolledKey,
  updatedKey,
} from './key-records.ts';
import { keyScopes, type Scope } from './scopes.ts';
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

/** A key as the admin API shows it: never a token, its hash or the usage identifier. */
export type ShownKey = Omit<ListedKey, 'keyHash' | 'usageIdentifier' | 'graceUntil'>;

/** A key with its ban and its last day used, as `listKeys` and `getKey` answer it. */
export interface KeyStatus {
  readonly key: ShownKey;
  /** ISO 8601 end of the ban in force. */
  readonly bannedUntil?: string;
  /** Last UTC day (`YYYY-MM-DD`) with a request, within `RETENTION_DAYS`. */
  readonly lastUsed?: string;
}

/** A key before and after a change, as shown, with what API Gateway did in each region. */
export interface ShownChange {
  readonly previous: ShownKey;
  readonly key: ShownKey;
  readonly apiGateway: ApiGatewaySteps;
}

/** API Gateway's part of a change it does not hold (expiry, scopes): no region, no step. */
const NO_API_GATEWAY_STEPS: ApiGatewaySteps = { regions: [], steps: [] };

export function shownKey(record: ApiKeyRecord | ListedKey): ShownKey {
  const { keyHash: _hash, usageIdentifier: _usage, graceUntil: _grace, ...shown } = record;
  return shown;
}

/** `changed` as the admin API shows it, with API Gateway's steps (none: expiry, scopes). */
function shownChange(changed: KeyChange, apiGateway = NO_API_GATEWAY_STEPS): ShownChange {
  return { previous: shownKey(changed.previous), key: shownKey(changed.record), apiGateway };
}

/** The key service of a stage (or the local stack). */
export class KeyService {
  private readonly now: () => number;

  constructor(private readonly ports: KeyServicePorts) {
    this.now = ports.now ?? (() => Date.now());
  }

  /**
   * Issues a key (its token shown once): on a stage its API key first, undone if the transaction of
   * its rows and `key.created` fails. @throws InvalidLimitsError; InvalidScopesError; ApiGatewayStepError.
   */
  async createKey(
    input: Omit<NewKeyInput, 'tokenStage'>,
    context: AuditContext,
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
    await undo.run(() => this.ports.keys.storeKey(issued, context), undoneAfter);
    return {
      key: shownKey(issued.record),
      token: issued.token,
      apiGateway: await this.apiGatewaySteps(steps),
    };
  }

  /** Every key, oldest first, with its ban and last day used. */
  async listKeys(): Promise<KeyStatus[]> {
    return this.withStatus(await this.ports.keys.listKeys());
  }

  /** @throws KeyNotFoundError */
  async getKey(keyId: string): Promise<KeyStatus> {
    const [status] = await this.withStatus([await this.existing(keyId)]);
    return status as KeyStatus;
  }

  /**
   * Issues a new token for the same key; the current token works `graceSeconds` more, an older one
   * ends now (`key.rolled`). @throws KeyNotFoundError; KeyRevokedError; KeyChangedError.
   */
  async rollKey(keyId: string, graceSeconds: number, context: AuditContext): Promise<RolledKey> {
    const read = await this.read(keyId);
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
    const read = await this.read(keyId);
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
    await this.existing(keyId);
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

  /** A key's audit entries, oldest first. @throws KeyNotFoundError for a key never issued. */
  async history(keyId: string): Promise<AuditEntry[]> {
    const entries = await this.ports.audit.history(keyId);
    if (entries.length === 0) await this.existing(keyId);
    return entries;
  }

  /** The stage's entries in a window, oldest first. @throws InvalidAuditWindowError */
  async auditWindow(window: AuditWindow): Promise<AuditEntry[]> {
    return this.ports.audit.window(window);
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

  /** The key's live tokens, read once. @throws KeyNotFoundError */
  private async read(keyId: string): Promise<KeyTokens> {
    const tokens = await this.ports.keys.tokensOf(keyId);
    if (!tokens) throw new KeyNotFoundError(keyId);
    return tokens;
  }

  /** @throws KeyNotFoundError */
  private async existing(keyId: string): Promise<ApiKeyRecord> {
    return (await this.read(keyId)).current;
  }

  /** `update` on the key as read now, with its entry. @throws KeyNotFoundError; KeyChangedError */
  private async change(keyId: string, update: KeyUpdate, context: AuditContext) {
    return this.ports.keys.changeKey(await this.read(keyId), update, context);
  }

  /** Keys with their ban (one GetItem each) and last day used (BatchGetItem). */
  private async withStatus(keys: readonly (ApiKeyRecord | ListedKey)[]): Promise<KeyStatus[]> {
    const now = this.now();
    const enterprise = keys.filter((record) => record.plan === ENTERPRISE_PLAN.id);
    const [bans, usage] = await Promise.all([
      Promise.all(keys.map((record) => this.ports.bans.banState(record.keyId, now))),
      this.ports.usage.dailyUsage(
        keys.map((record) => record.keyId),
        RETENTION_DAYS,
        now,
        new Set(enterprise.map((record) => record.keyId)),
      ),
    ]);
    return keys.map((record, index) => {
      const ban = bans[index];
      const lastUsed = lastUsedDay(usage.get(record.keyId) ?? []);
      return {
        key: shownKey(record),
        ...(ban && { bannedUntil: new Date(ban.bannedUntil * 1000).toISOString() }),
        ...(lastUsed && { lastUsed }),
      };
    });
  }
}
