/** Audit entries: one per change to a key, in the change's transaction (docs/operations.md). */
import { randomUUID } from 'node:crypto';

/** One event per kind of change to a key. */
export const AUDIT_EVENTS = [
  'key.created',
  'key.rolled',
  'key.expiry_set',
  'key.plan_changed',
  'key.scope_changed',
  'key.revoked',
  'key.unbanned',
  'key.restored',
] as const;

/** An event of the audit trail, e.g. `key.revoked`. */
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Whether `name` is an audit event. */
export function isAuditEvent(name: string): name is AuditEvent {
  return (AUDIT_EVENTS as readonly string[]).includes(name);
}

/** An IAM principal, an account of the developer portal's user pool, or a system on its own. */
export type ActorType = 'iam' | 'account' | 'system';

/**
 * Who made a change, as its door established it (never a request body), in Unkey's shape: `id` an
 * IAM principal's ARN, `cognito:<sub>` or a system's name (`local:npm-start`); `name` e.g. an email.
 */
export interface Actor {
  readonly type: ActorType;
  readonly id: string;
  readonly name?: string;
}

/** The request a change came in, beside its actor: what every entry of it records. */
export interface AuditContext {
  readonly actor: Actor;
  /** API Gateway's request id (`requestContext.requestId`); a system's or command's run id. */
  readonly requestId: string;
  /** From `requestContext.identity`, when known. */
  readonly sourceIp?: string;
  readonly userAgent?: string;
  /** Why, as the caller said (`--reason`), at most 500 characters. */
  readonly reason?: string;
}

/** The context of a run of a system actor (`local:npm-start`): one random request id. */
export function systemAuditContext(id: string): AuditContext {
  return { actor: { type: 'system', id }, requestId: randomUUID() };
}

/** A changed field's value before and after; absent: the field was not set. */
export interface FieldChange {
  readonly before?: unknown;
  readonly after?: unknown;
}

/** One entry of the audit trail. */
export interface AuditEntry {
  /** A random UUID (partition key). */
  readonly entryId: string;
  /** ISO 8601 time of the change, UTC, milliseconds. */
  readonly at: string;
  readonly event: AuditEvent;
  readonly keyId: string;
  readonly actor: Actor;
  readonly requestId: string;
  readonly sourceIp?: string;
  readonly userAgent?: string;
  /** Each changed field of the key, before and after; never a token, never its hash. */
  readonly changes: Readonly<Record<string, FieldChange>>;
  readonly reason?: string;
}

/** Fields of a key that no entry records: secrets, and the row's own bookkeeping. */
const UNRECORDED_FIELDS: ReadonlySet<string> = new Set([
  'keyHash',
  'usageIdentifier',
  'graceUntil',
  'currentHash',
  'rolledOutHash',
]);

/** The changed fields between two states of a key, but the unrecorded. @param before None: a new key. */
export function changedFields(
  before: object | undefined,
  after: object,
): Record<string, FieldChange> {
  const was = (before ?? {}) as Readonly<Record<string, unknown>>;
  const is = after as Readonly<Record<string, unknown>>;
  const names = new Set([...Object.keys(was), ...Object.keys(is)]);
  const changes: Record<string, FieldChange> = {};
  for (const name of [...names].sort()) {
    if (UNRECORDED_FIELDS.has(name)) continue;
    const valueBefore = was[name];
    const valueAfter = is[name];
    if (JSON.stringify(valueBefore) === JSON.stringify(valueAfter)) continue;
    changes[name] = {
      ...(valueBefore !== undefined && { before: valueBefore }),
      ...(valueAfter !== undefined && { after: valueAfter }),
    };
  }
  return changes;
}

/** A new audit entry for a change to `keyId`. @param nowMs Epoch ms. @default Date.now() */
export function auditEntry(
  event: AuditEvent,
  keyId: string,
  changes: Readonly<Record<string, FieldChange>>,
  context: AuditContext,
  nowMs = Date.now(),
): AuditEntry {
  return {
    entryId: randomUUID(),
    at: new Date(nowMs).toISOString(),
    event,
    keyId,
    actor: context.actor,
    requestId: context.requestId,
    ...(context.sourceIp !== undefined && { sourceIp: context.sourceIp }),
    ...(context.userAgent !== undefined && { userAgent: context.userAgent }),
    changes,
    ...(context.reason !== undefined && { reason: context.reason }),
  };
}

/** What a window query of the stage's entries keeps. */
export interface AuditWindow {
  /** ISO 8601 start, inclusive. */
  readonly since: string;
  /** ISO 8601 end, exclusive. */
  readonly until: string;
  /** `Actor.id`. @default - every actor */
  readonly actor?: string;
  /** @default - every event */
  readonly event?: AuditEvent;
}

/** What a page of a window's entries is asked for with (listPets's paging: docs/api.md). */
export interface AuditPageQuery {
  /** Most entries on the page, 1 to 100. */
  readonly limit: number;
  /** The cursor the page before gave. @default - the first page */
  readonly cursor?: string;
}

/** A page of a window's entries, oldest first, and the cursor of the next when more follow. */
export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly cursor?: string;
}
