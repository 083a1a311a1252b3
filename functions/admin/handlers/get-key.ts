/** `GET /keys/{keyId}` (getKey): 200 the key with its ban and last day used; 404 `key_not_found`. */
import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of getKey. */
export function getKeyHandler(service: KeyService) {
  return adminHandler(async function getKey(event) {
    return jsonResponse(200, await service.getKey(keyIdOf(event)));
  });
}
