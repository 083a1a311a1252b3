/**
 * `GET /audit?since=…[&until=…][&actor=…][&event=…][&limit=…][&cursor=…]` (listAuditEntries): 200
 * `{ since, until, entries }`, a page oldest first with `Link: <…>; rel="next"` while more follow;
 * 400 `invalid_parameter` for a bad or empty window or a cursor not given by the service.
 */
import {
  ADMIN_API_STAGE_NAME,
  AUDIT_PATH,
  adminOperationOf,
} from '../../../shared/admin-operations.ts';
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { pageLink } from '../../../shared/http/page-link.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { AuditQuerySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';

/** The Lambda handler of listAuditEntries (`until` defaults to now, kept by the next pages). */
export function listAuditEntriesHandler(service: KeyService) {
  return adminHandler(
    async function listAuditEntries(event) {
      const query = parseOrThrow(
        AuditQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      );
      const { limit, cursor, ...filters } = query;
      const window = { ...filters, until: filters.until ?? new Date().toISOString() };
      const page = await service.auditWindow(window, { limit, cursor });
      // The next page keeps the window as this one fixed it, `until` included.
      const link =
        page.cursor &&
        pageLink(`/${ADMIN_API_STAGE_NAME}${AUDIT_PATH}`, { ...window, limit }, page.cursor);
      return jsonResponse(
        200,
        { since: window.since, until: window.until, entries: page.entries },
        link ? { Link: link } : {},
      );
    },
    { queryParameters: adminOperationOf('listAuditEntries').queryParameters },
  );
}
