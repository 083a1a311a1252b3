/** The audit entries (Puts) that `DynamoDBKeyStore` writes in each change's own transaction. */
import { type AuditContext, type AuditEvent, changedFields } from '../audit/entry.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import type { AuditPut, DynamoDBAuditLog } from './audit-log.ts';

/** The entry of each kind of change to a key, on the audit table. */
export class KeyAuditor {
  constructor(private readonly log: DynamoDBAuditLog) {}

  /** The `key.created` entry of a new key. */
  created(record: ApiKeyRecord, context: AuditContext): AuditPut {
    return this.log.recorder(context)(
      'key.created',
      record.keyId,
      changedFields(undefined, record),
    );
  }

  /** The entry of a change from `before` to `after`; `undefined` when no recorded field changed. */
  changed(
    event: AuditEvent,
    before: ApiKeyRecord,
    after: ApiKeyRecord,
    context: AuditContext,
  ): AuditPut | undefined {
    const changes = changedFields(before, after);
    return Object.keys(changes).length > 0
      ? this.log.recorder(context)(event, before.keyId, changes)
      : undefined;
  }

  /** The `key.rolled` entry: `oldTokenUntil` before (an earlier grace, ended now) and after. */
  rolled(
    keyId: string,
    earlierGrace: string | undefined,
    graceUntil: string | undefined,
    context: AuditContext,
  ): AuditPut {
    return this.log.recorder(context)('key.rolled', keyId, {
      oldTokenUntil: {
        ...(earlierGrace && { before: earlierGrace }),
        after: graceUntil ?? new Date().toISOString(),
      },
    });
  }

  /** The `key.restored` entry of a restore putting back `current` over `live` (none: missing). */
  restored(
    keyId: string,
    current: { readonly live?: object; readonly restored: object } | undefined,
    context: AuditContext,
  ): AuditPut {
    const changes = current ? changedFields(current.live, current.restored) : {};
    return this.log.recorder(context)('key.restored', keyId, changes);
  }
}
