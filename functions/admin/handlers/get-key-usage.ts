/** `GET /keys/{keyId}/usage?days=N` (getKeyUsage): 200 `{ keyId, days, lastUsed? }`, newest day first. */

import { adminOperationOf } from '../../../shared/admin-operations.ts';
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { UsageQuerySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of getKeyUsage. */
export function getKeyUsageHandler(service: KeyService) {
  return adminHandler(
    async function getKeyUsage(event) {
      const keyId = keyIdOf(event);
      const { days } = parseOrThrow(
        UsageQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      );
      return jsonResponse(200, { keyId, ...(await service.usage(keyId, days)) });
    },
    { queryParameters: adminOperationOf('getKeyUsage').queryParameters },
  );
}
