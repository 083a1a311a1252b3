/** `GET /keys/{keyId}/history` (getKeyHistory): 200 `{ keyId, entries }`, oldest first. */
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyOperations } from '../../../shared/keys/key-operations.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of getKeyHistory. */
export function getKeyHistoryHandler(operations: KeyOperations) {
  return adminHandler(async function getKeyHistory(event) {
    const keyId = keyIdOf(event);
    return jsonResponse(200, { keyId, entries: await operations.history(keyId) });
  });
}
