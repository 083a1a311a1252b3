/**
 * `GET /audit?since=…[&until=…][&actor=…][&event=…]` (listAuditEntries): 200
 * `{ since, until, entries }`, oldest first; 400 `invalid_parameter` for a bad or empty window.
 */
import { adminOperationOf } from '../../../shared/admin-operations.ts';
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { AuditQuerySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';

/** The Lambda handler of listAuditEntries (`until` defaults to now). */
export function listAuditEntriesHandler(service: KeyService) {
  return adminHandler(
    async function listAuditEntries(event) {
      const query = parseOrThrow(
        AuditQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      );
      const window = { ...query, until: query.until ?? new Date().toISOString() };
      const entries = await service.auditWindow(window);
      return jsonResponse(200, { since: window.since, until: window.until, entries });
    },
    { queryParameters: adminOperationOf('listAuditEntries').queryParameters },
  );
}
