/**
 * `GET /keys?limit=&cursor=` (listPortalKeys): 200 `{ keys }`, a page of the account's keys,
 * oldest first, with `Link: <…>; rel="next"` while more follow.
 */

import * as v from 'valibot';
import { pageLink } from '../../../shared/http/page-link.ts';
import { type PortalDoor, portalHandler } from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { PAGE_QUERY_ENTRIES } from '../../../shared/paging.ts';
import { portalKey } from '../../../shared/portal/portal-key.ts';
import {
  PORTAL_API_STAGE_NAME,
  PORTAL_KEYS_PATH,
  portalOperationOf,
} from '../../../shared/portal-operations.ts';

const ListPortalKeysQuerySchema = v.object(PAGE_QUERY_ENTRIES);

/** The Lambda handler of listPortalKeys. */
export function listPortalKeysHandler(keys: KeyService, door: PortalDoor) {
  return portalHandler(
    async function listPortalKeys(event, account) {
      const query = parseOrThrow(
        ListPortalKeysQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      );
      const page = await keys.listKeys({ ...query, owner: accountOwner(account.sub) });
      const now = Date.now();
      const path = `/${PORTAL_API_STAGE_NAME}${PORTAL_KEYS_PATH}`;
      const link = page.cursor && pageLink(path, { limit: query.limit }, page.cursor);
      return jsonResponse(
        200,
        { keys: page.keys.map((status) => portalKey(status, now)) },
        link ? { Link: link } : {},
      );
    },
    door,
    { queryParameters: portalOperationOf('listPortalKeys').queryParameters },
  );
}
