/** `GET /keys` (listKeys; docs/admin-openapi.yaml): 200 `{ keys }`, oldest first. */
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyOperations } from '../../../shared/keys/key-operations.ts';

/** The Lambda handler of listKeys: every key with its ban and last day used. */
export function listKeysHandler(operations: KeyOperations) {
  return adminHandler(async function listKeys() {
    return jsonResponse(200, { keys: await operations.listKeys() });
  });
}
