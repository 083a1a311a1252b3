/** How `DynamoDBKeyStore` records a change to a key in the change's own transaction. */
import { type AuditEvent, changedFields } from '../audit/entry.ts';
import type { KeyChangeAudit } from '../keys/admin-ports.ts';
import { KeyChangedError } from '../keys/errors.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import type { AuditPut, DynamoDBAuditLog } from './audit-log.ts';

/** A change `DynamoDBKeyStore` makes to every row of a key and, when audited, how. */
export interface AuditedChange {
  readonly event: AuditEvent;
  /** The key after the change, from the current row before it. */
  readonly after: (previous: ApiKeyRecord) => ApiKeyRecord;
  readonly audit?: KeyChangeAudit;
}

/** The audit entries (Puts) of a key store's changes; none for an unaudited change. */
export class KeyAuditor {
  /** @param log The audit table; without it an audited change throws. */
  constructor(private readonly log?: DynamoDBAuditLog) {}

  /** The `key.created` entry of a new key. */
  created(record: ApiKeyRecord, audit?: KeyChangeAudit): AuditPut | undefined {
    return audit && this.put(audit, 'key.created', record.keyId, changedFields(undefined, record));
  }

  /**
   * The entry of a change to the key whose current row is `current`, or `undefined` when it
   * changes no recorded field (no entry then).
   * @throws KeyChangedError when `audit.expected` differs from `current` in an `unchanged` field.
   */
  changed(
    change: AuditedChange,
    current: ApiKeyRecord,
    unchanged: readonly (keyof ApiKeyRecord)[],
  ): AuditPut | undefined {
    const { audit } = change;
    if (!audit) return undefined;
    const { expected } = audit;
    const same = (name: keyof ApiKeyRecord) =>
      JSON.stringify(expected?.[name]) === JSON.stringify(current[name]);
    if (expected && !unchanged.every(same)) throw new KeyChangedError(current.keyId);
    const changes = changedFields(current, change.after(current));
    return Object.keys(changes).length > 0
      ? this.put(audit, change.event, current.keyId, changes)
      : undefined;
  }

  /**
   * The `key.rolled` entry: its change is until when the old token works (`oldTokenUntil`),
   * before (an earlier grace, ended now) and after (the new grace's end, or now).
   */
  rolled(
    keyId: string,
    earlierGrace: string | undefined,
    graceUntil: string | undefined,
    audit?: KeyChangeAudit,
  ): AuditPut | undefined {
    return (
      audit &&
      this.put(audit, 'key.rolled', keyId, {
        oldTokenUntil: {
          ...(earlierGrace && { before: earlierGrace }),
          after: graceUntil ?? new Date().toISOString(),
        },
      })
    );
  }

  /** @throws Error when there is no audit table. */
  private put(
    audit: KeyChangeAudit,
    ...entry: Parameters<ReturnType<DynamoDBAuditLog['recorder']>>
  ) {
    if (!this.log) throw new Error('An audited key change needs the audit table');
    return this.log.recorder(audit.context)(...entry);
  }
}
