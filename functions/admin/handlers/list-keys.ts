/**
 * `GET /keys?limit=&cursor=&owner=` (listKeys; docs/admin-openapi.yaml): 200 `{ keys }`, a page of
 * keys (an owner's oldest first, else every key in the table's order) with `Link: <…>; rel="next"`
 * while more follow.
 */
import {
  ADMIN_API_STAGE_NAME,
  adminOperationOf,
  KEYS_PATH,
} from '../../../shared/admin-operations.ts';
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { pageLink } from '../../../shared/http/page-link.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { ListKeysQuerySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';

/** The Lambda handler of listKeys: a page of keys with their bans and last days used. */
export function listKeysHandler(service: KeyService) {
  return adminHandler(
    async function listKeys(event) {
      const query = parseOrThrow(
        ListKeysQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      );
      const { keys, cursor } = await service.listKeys(query);
      const path = `/${ADMIN_API_STAGE_NAME}${KEYS_PATH}`;
      const link = cursor && pageLink(path, { limit: query.limit, owner: query.owner }, cursor);
      return jsonResponse(200, { keys }, link ? { Link: link } : {});
    },
    { queryParameters: adminOperationOf('listKeys').queryParameters },
  );
}
