/**
 * Admin API events as API Gateway passes them after AWS_IAM authorization: the signer's principal
 * in `requestContext.identity` (userArn, accountId, caller, user agent), and the key service on
 * this test file's tables.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type AdminOperationId, adminOperationOf } from '../../shared/admin-operations.ts';
import { type OperationRequest, operationEvent } from './operation-event.ts';

/** The principal that signs the requests of the tests: an assumed role's session. */
export const SIGNER = 'arn:aws:sts::111111111111:assumed-role/petstore-operators/alice';

/** The user agent the signer's SDK sends. */
export const USER_AGENT = 'aws-sdk-js/3 petstore-keys';

/** The key service on the test file's keys, counters and audit tables (no API Gateway). */
export const service = createKeyService();

/** What a test sends to one admin operation. */
export interface AdminRequest extends OperationRequest {
  /** The signer's principal ARN; `null`: no IAM identity at all. @default SIGNER */
  readonly arn?: string | null;
  readonly headers?: Record<string, string>;
}

/** The event of `operationId` for `request`, as API Gateway passes it after IAM authorization. */
export function adminEvent(
  operationId: AdminOperationId,
  request: AdminRequest = {},
): APIGatewayProxyEvent {
  const event = operationEvent(
    adminOperationOf(operationId),
    request,
    { 'User-Agent': USER_AGENT, ...request.headers },
    { sourceIp: '203.0.113.7' },
  );
  const arn = request.arn === undefined ? SIGNER : request.arn;
  Object.assign(event.requestContext.identity, {
    userArn: arn,
    accountId: arn?.split(':')[4] ?? null,
    caller: arn === null ? null : 'AROAEXAMPLE:alice',
    userAgent: USER_AGENT,
  });
  return event;
}
