/**
 * The portal API's handlers on a test file's tables (the key service of `createKeyService`), a
 * verifier that knows each test account by its token (`tokenOf`; the real verifier has tests of
 * its own: test/unit/id-token-verifier.test.ts), a recording event bus and user pool, and the
 * events API Gateway passes after its Cognito authorizer.
 */
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { createPortalKeyHandler } from '../../functions/portal/handlers/create-portal-key.ts';
import { deleteAccountHandler } from '../../functions/portal/handlers/delete-account.ts';
import { getAccountHandler } from '../../functions/portal/handlers/get-account.ts';
import { getPortalKeyHandler } from '../../functions/portal/handlers/get-portal-key.ts';
import { getPortalKeyUsageHandler } from '../../functions/portal/handlers/get-portal-key-usage.ts';
import { listPortalKeysHandler } from '../../functions/portal/handlers/list-portal-keys.ts';
import { revokePortalKeyHandler } from '../../functions/portal/handlers/revoke-portal-key.ts';
import { rollPortalKeyHandler } from '../../functions/portal/handlers/roll-portal-key.ts';
import { setPortalKeyPlanHandler } from '../../functions/portal/handlers/set-portal-key-plan.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import type { ServiceEvent } from '../../shared/events/event-publisher.ts';
import type { HttpHandler } from '../../shared/http/handler.ts';
import { InvalidIdTokenError } from '../../shared/portal/portal-errors.ts';
import type { PortalAccount } from '../../shared/portal/portal-ports.ts';
import { type PortalOperationId, portalOperationOf } from '../../shared/portal-operations.ts';
import { type OperationRequest, operationEvent } from './operation-event.ts';

/** The portal's origin in the tests. */
export const PORTAL_ORIGIN = 'https://portal.example.com';

/** The key service on the test file's tables. */
export const service = createKeyService();

/** What the recording bus was given, in order. */
export const published: ServiceEvent[] = [];

/** The accounts the recording user pool was asked to delete, in order. */
export const deleted: string[] = [];

/** A test account's bearer token: a token only this file's verifier knows. */
export function tokenOf(account: PortalAccount): string {
  return Buffer.from(JSON.stringify(account)).toString('base64url');
}

const door = {
  origin: PORTAL_ORIGIN,
  verifier: {
    async verify(token: string): Promise<PortalAccount> {
      try {
        return JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PortalAccount;
      } catch (error) {
        throw new InvalidIdTokenError({ cause: error });
      }
    },
  },
};

/** The limit of active keys an account holds in the tests. */
export const KEY_LIMIT = 3;

const handlers: Record<PortalOperationId, HttpHandler> = {
  getAccount: getAccountHandler(service, door, {
    keyLimit: KEY_LIMIT,
    enterpriseContactUrl: 'mailto:sales@example.com',
  }),
  deleteAccount: deleteAccountHandler(
    service,
    { deleteAccount: async (sub) => void deleted.push(sub) },
    door,
  ),
  listPortalKeys: listPortalKeysHandler(service, door),
  createPortalKey: createPortalKeyHandler(service, door, KEY_LIMIT),
  getPortalKey: getPortalKeyHandler(service, door),
  rollPortalKey: rollPortalKeyHandler(service, door),
  revokePortalKey: revokePortalKeyHandler(service, door),
  getPortalKeyUsage: getPortalKeyUsageHandler(service, door),
  setPortalKeyPlan: setPortalKeyPlanHandler(
    service,
    { publish: async (events) => void published.push(...events) },
    door,
  ),
};

/** What a test sends to one portal operation. */
export interface PortalRequest extends OperationRequest {
  /** The bearer token. @default - none */
  readonly token?: string;
}

/** A portal answer: its status, headers and parsed body (none for 204). */
export interface PortalAnswer {
  readonly status: number;
  readonly headers: Record<string, string | number | boolean>;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the answer's fields freely.
  readonly body: any;
  /** The body as sent. */
  readonly text: string;
}

/** Calls `operationId`'s handler with the event API Gateway passes for `request`. */
export async function callPortal(
  operationId: PortalOperationId,
  request: PortalRequest = {},
): Promise<PortalAnswer> {
  const event = operationEvent(
    portalOperationOf(operationId),
    request,
    { ...(request.token && { Authorization: `Bearer ${request.token}` }), Origin: PORTAL_ORIGIN },
    { sourceIp: '203.0.113.9', stage: 'portal' },
  );
  const result = await handlers[operationId](event, createLambdaContext('portal'));
  return {
    status: result.statusCode,
    headers: result.headers ?? {},
    body: result.body ? JSON.parse(result.body) : undefined,
    text: result.body,
  };
}
