/**
 * The leaked-key endpoint's route (docs/operations.md, "Leaked keys"): a method of each region's
 * public RestApi outside the documented client API (not in docs/openapi.yaml, so not a row of
 * infra/routes.ts), without the authorizer, usage plans or rate limiter: GitHub's signature is its
 * authorization. The stack builds it (infra/constructs/secret-scanning-endpoint.ts), the local
 * gateway serves it from the same row.
 *
 * - the handler: functions/secret-scanning.ts → functions/handlers/secret-scanning.ts; the
 *   signature: shared/http/github-signature.ts, shared/secret-scanning/; the revocations:
 *   shared/keys/leaked-tokens.ts on the key service (functions/admin/composition-root.ts,
 *   `homeKeyService`); the event: shared/events/event-publisher.ts
 */
import { KEYS_TABLE } from '../shared/dynamodb/tables.ts';
import { AUDIT_WRITE, keyUpdate } from './admin-routes.ts';
import type { FunctionDefinition } from './routes.ts';

/** The endpoint's path below the stage (`…/v1/secret-scanning/github`): GitHub's program. */
export const SECRET_SCANNING_PATH = '/secret-scanning/github';

/** The endpoint's route: its method, path and function. */
export interface SecretScanningRoute extends FunctionDefinition {
  readonly operationId: 'reportLeakedTokens';
  readonly method: 'POST';
  readonly path: string;
}

/**
 * The route. Its function reads the reported tokens' rows (BatchGetItem) in its own region and
 * revokes through the key service in the home region (the key's head and rows read, updated under
 * a condition, with the audit entry); it publishes `key.leaked`. 25 s: GitHub waits 30 s, API
 * Gateway 29 s.
 */
export const SECRET_SCANNING_ROUTE: SecretScanningRoute = {
  operationId: 'reportLeakedTokens',
  method: 'POST',
  path: SECRET_SCANNING_PATH,
  entry: 'functions/secret-scanning.ts',
  constructId: 'SecretScanningFunction',
  tableAccess: [
    { table: KEYS_TABLE, actions: ['dynamodb:BatchGetItem'], inHomeRegion: true },
    { ...keyUpdate(), inHomeRegion: true },
    { ...AUDIT_WRITE, inHomeRegion: true },
  ],
  publishesEvents: true,
  timeoutSeconds: 25,
};
