/** `GET /keys/{keyId}/history` (getKeyHistory): 200 `{ keyId, entries }`, oldest first. */
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of getKeyHistory. */
export function getKeyHistoryHandler(service: KeyService) {
  return adminHandler(async function getKeyHistory(event) {
    const keyId = keyIdOf(event);
    return jsonResponse(200, { keyId, entries: await service.history(keyId) });
  });
}
