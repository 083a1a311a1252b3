/**
 * The audit table: an entry is put, if absent, in the transaction of the change it records, and read
 * by key (`KeyHistory`) or by window (`AuditByDay`); none is ever updated or deleted here.
 */
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { InvalidAuditWindowError } from '../audit/audit-errors.ts';
import {
  type AuditContext,
  type AuditEntry,
  type AuditEvent,
  type AuditPage,
  type AuditPageQuery,
  type AuditWindow,
  auditEntry,
  type FieldChange,
} from '../audit/entry.ts';
import { InvalidListCursorError } from '../keys/key-errors.ts';
import { decodePosition, encodePosition, orderedPage } from '../paging.ts';
import { requiredSetting, type Settings } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';
import { AUDIT_DAY_INDEX, KEY_HISTORY_INDEX } from './tables.ts';

/** A TransactWriteItems write, as the document client takes it. */
export interface AuditPut {
  readonly Put: {
    readonly TableName: string;
    readonly Item: Record<string, unknown>;
    readonly ConditionExpression: string;
    readonly ExpressionAttributeNames: Record<string, string>;
  };
}

/** The entry's Put of a change, for the caller's transaction (none for a change of nothing). */
export type AuditRecorder = (
  event: AuditEvent,
  keyId: string,
  changes: Readonly<Record<string, FieldChange>>,
) => AuditPut;

/** An audit entry as the audit table holds it: the entry, its UTC day and its TTL. */
interface AuditItem extends AuditEntry {
  /** `YYYY-MM-DD` of `at` (`AuditByDay`'s partition key). */
  readonly day: string;
  /** TTL, epoch seconds. */
  readonly expiresAt: number;
}

/** Most days a window may span: the longest retention (ten years), bounding its Queries. */
export const MAX_WINDOW_DAYS = 3_660;

/** Writes (as part of others' transactions) and reads the audit table. */
export class DynamoDBAuditLog {
  /** @param retentionDays Days an entry is kept before DynamoDB's TTL deletes it. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly retentionDays: number,
  ) {}

  /** The log of `base`'s `AUDIT_TABLE_NAME`, `AUDIT_RETENTION_DAYS`. @throws Error: no table name. */
  static from({ client, settings }: DynamoDBBase<Settings>): DynamoDBAuditLog {
    return new DynamoDBAuditLog(
      client,
      requiredSetting(settings, 'AUDIT_TABLE_NAME'),
      settings.AUDIT_RETENTION_DAYS,
    );
  }

  /** The recorder of one request's changes, with its `context`. @param now Epoch ms. @default Date.now */
  recorder(context: AuditContext, now: () => number = Date.now): AuditRecorder {
    return (event, keyId, changes) => this.put(auditEntry(event, keyId, changes, context, now()));
  }

  /** The Put of `entry`, if no entry has its id (an entry is never overwritten). */
  put(entry: AuditEntry): AuditPut {
    const item: AuditItem = {
      ...entry,
      day: entry.at.slice(0, 10),
      expiresAt: Math.floor(Date.parse(entry.at) / 1000) + this.retentionDays * 86_400,
    };
    return {
      Put: {
        TableName: this.tableName,
        Item: { ...item },
        ConditionExpression: 'attribute_not_exists(#entryId)',
        ExpressionAttributeNames: { '#entryId': 'entryId' },
      },
    };
  }

  /** A key's entries, oldest first (the `KeyHistory` index: eventually consistent, ~1 s). */
  async history(keyId: string, options: { signal?: AbortSignal } = {}): Promise<AuditEntry[]> {
    return this.query(
      {
        IndexName: KEY_HISTORY_INDEX,
        KeyConditionExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': keyId },
      },
      options.signal,
    );
  }

  /**
   * A page of a window's entries by (`at`, id): `AuditByDay` day by day, `2 × (limit + 1)` a
   * Query. @throws InvalidAuditWindowError; InvalidListCursorError.
   */
  async window(
    window: AuditWindow,
    page: AuditPageQuery,
    options: { signal?: AbortSignal } = {},
  ): Promise<AuditPage> {
    const days = daysOf(window.since, window.until);
    const after = page.cursor === undefined ? undefined : decodePosition(page.cursor);
    if (page.cursor !== undefined && !(after && Date.parse(after.sort) >= 0)) {
      throw new InvalidListCursorError();
    }
    const filters = [
      ...(window.actor === undefined ? [] : ['#actor.#id = :actor']),
      ...(window.event === undefined ? [] : ['#event = :event']),
    ];
    const from = after && after.sort > window.since ? after.sort : window.since;
    const query = (day: string) => ({
      IndexName: AUDIT_DAY_INDEX,
      KeyConditionExpression: '#day = :day AND #at BETWEEN :since AND :last',
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
      ExpressionAttributeNames: {
        '#day': 'day',
        '#at': 'at',
        ...(window.actor !== undefined && { '#actor': 'actor', '#id': 'id' }),
        ...(window.event !== undefined && { '#event': 'event' }),
      },
      ExpressionAttributeValues: {
        ':day': day,
        ':since': from,
        // `until` is exclusive; BETWEEN is inclusive, and no ISO time sorts between these.
        ':last': `${window.until.slice(0, -1)}\u0000`,
        ...(window.actor !== undefined && { ':actor': window.actor }),
        ...(window.event !== undefined && { ':event': window.event }),
      },
      Limit: 2 * (page.limit + 1),
    });
    const pagesOf = (day: string) => this.pages(query(day), options.signal);
    async function* entries() {
      for (const day of days.filter((each) => each >= from.slice(0, 10))) yield* pagesOf(day);
    }
    const found = await orderedPage(
      entries(),
      (entry) => ({ sort: entry.at, id: entry.entryId }),
      page.limit,
      after,
    );
    return {
      entries: found.items,
      ...(found.next && { cursor: encodePosition(found.next) }),
    };
  }

  /** Every page of a Query of the table, as entries without the table's own attributes. */
  private async query(
    input: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<AuditEntry[]> {
    const entries: AuditEntry[] = [];
    for await (const page of this.pages(input, signal)) entries.push(...page);
    return entries;
  }

  /** The pages of a Query of the table, read as they are asked for, as entries. */
  private async *pages(
    input: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<AuditEntry[]> {
    const pages = paginateQuery(
      { client: this.client },
      { TableName: this.tableName, ...input },
      ...(signal ? [{ abortSignal: signal }] : []),
    );
    for await (const page of pages) {
      yield (page.Items ?? []).map((item) => {
        const { day: _day, expiresAt: _expiresAt, ...entry } = item as AuditItem;
        return entry;
      });
    }
  }
}

/** The UTC days (`YYYY-MM-DD`) a window touches. @throws InvalidAuditWindowError (see `window`). */
function daysOf(since: string, until: string): string[] {
  const start = Date.parse(since.slice(0, 10));
  const end = Date.parse(until);
  if (!(end > Date.parse(since))) throw new InvalidAuditWindowError('until must be after since');
  const count = Math.floor((end - 1 - start) / 86_400_000) + 1;
  if (count > MAX_WINDOW_DAYS) {
    throw new InvalidAuditWindowError(`a window spans at most ${MAX_WINDOW_DAYS} days`);
  }
  return Array.from({ length: count }, (_, index) =>
    new Date(start + index * 86_400_000).toISOString().slice(0, 10),
  );
}
