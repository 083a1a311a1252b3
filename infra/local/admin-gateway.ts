/**
 * The local admin API: the second REST API of a stage emulated on a listener of its own (as it has
 * a host of its own on AWS), routed by the admin route table (infra/admin-routes.ts), every method
 * AWS_IAM-authorized: a request's SigV4 signature is
 * checked against the local stack's own credentials (sigv4.ts) before its function runs, and the
 * function gets API Gateway's IAM-authorized event, the signer in `requestContext.identity`
 * (docs/local-stack.md, "The admin API").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import type { LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { logger } from '../../shared/logger.ts';
import { ADMIN_ROUTES } from '../admin-routes.ts';
import { ADMIN_GATEWAY_RESPONSES } from '../gateway-responses.ts';
import { INTEGRATION_TIMEOUT_MS, LambdaInvoker, type OperationHandlers } from './invocation.ts';
import { answerOperation, type OperationApi } from './operation-gateway.ts';
import { listen } from './server.ts';
import { checkSignature, type SigningPrincipal } from './sigv4.ts';
import { LOCAL_OPERATOR, LOCAL_REGION } from './stack-files.ts';

/** Options of {@link startAdminGateway}. */
export interface AdminGatewayOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Who may sign requests: the local stack's own credentials. */
  readonly principals: readonly SigningPrincipal[];
  /** The region requests are signed for. */
  readonly region: string;
  /**
   * The gateway's clock, epoch milliseconds, against which a signature's time is checked.
   * @default Date.now
   */
  readonly now?: () => number;
  /** How long an operation may take before the client gets 504. @default INTEGRATION_TIMEOUT_MS */
  readonly integrationTimeoutMs?: number;
  /**
   * Handlers that answer for operations instead of their routes' entries, behind the same
   * signature check (tests: the operations on a test's own ports).
   * @default - each route's entry
   */
  readonly handlers?: OperationHandlers;
}

/** A running local admin API. */
export interface LocalAdminGateway {
  /** Base URL of the admin API, its stage included: `http://127.0.0.1:3100/admin`. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the local admin API. Its handlers are imported at their first request, so the table
 * environment variables (see infra/local/create-tables.ts) must be set by then.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startAdminGateway(options: AdminGatewayOptions): Promise<LocalAdminGateway> {
  const host = options.host ?? '127.0.0.1';
  const api = {
    stageName: ADMIN_API_STAGE_NAME,
    routes: ADMIN_ROUTES,
    responses: ADMIN_GATEWAY_RESPONSES,
    principals: options.principals,
    region: options.region,
    now: options.now ?? Date.now,
    lambda: await LambdaInvoker.create(options.handlers),
    integrationTimeoutMs: options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS,
  };
  const server = await listen((request, response) => handleAdminRequest(request, response, api), {
    port: options.port,
    host,
    portEnv: 'ADMIN_PORT',
  });
  return {
    url: `http://${host}:${server.port}/${ADMIN_API_STAGE_NAME}`,
    close: () => server.close(),
  };
}

/**
 * Answers one request as an AWS_IAM method of the admin API (`answerOperation`'s steps): the
 * signature is checked against the stack's principals (each refusal a 403 of
 * `ADMIN_GATEWAY_RESPONSES`, its reason logged), and the function gets the signer's identity.
 */
function handleAdminRequest(
  request: IncomingMessage,
  response: ServerResponse,
  api: OperationApi & Pick<AdminGatewayOptions, 'principals' | 'region'> & { now(): number },
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  return answerOperation(request, response, api, requestId, async (received) => {
    const signature = await checkSignature(received, api.principals, api.region, api.now());
    if ('refusal' in signature) {
      logger.info('Admin API refused the signature', { requestId, reason: signature.reason });
      return { refusal: signature.refusal };
    }
    const { accessKeyId, userArn, userId } = signature.principal;
    return { caller: { accessKey: accessKeyId, userArn, userId } };
  });
}

/**
 * The local admin API on `port`, admitting only the stack's own `credentials` (as the local
 * operator), on the tables and `DYNAMODB_ENDPOINT` already in the environment.
 * @throws PortInUseError when the port is taken.
 */
export function startLocalAdminApi(
  port: number,
  host: string,
  credentials: LocalCredentials,
): Promise<LocalAdminGateway> {
  return startAdminGateway({
    port,
    host,
    principals: [{ ...credentials, ...LOCAL_OPERATOR }],
    region: LOCAL_REGION,
  });
}
