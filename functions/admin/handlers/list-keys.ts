/** `GET /keys` (listKeys; docs/admin-openapi.yaml): 200 `{ keys }`, oldest first. */
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';

/** The Lambda handler of listKeys: every key with its ban and last day used. */
export function listKeysHandler(service: KeyService) {
  return adminHandler(async function listKeys() {
    return jsonResponse(200, { keys: await service.listKeys() });
  });
}
