/**
 * Who calls the admin API, read from the event of API Gateway's IAM (SigV4) authorization: the
 * only source of an admin change's actor. A body's claim to be someone else is never read.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AuditContext } from '../audit/entry.ts';
import { ApiError } from './http-errors.ts';

/**
 * The audit context of an admin request: the IAM actor (`requestContext.identity.userArn`), its
 * `sourceIp` and `userAgent`, the request id from `requestContext.requestId`, and `reason`.
 * @param reason The caller's reason, already validated (the body's `reason`).
 * @throws ApiError 403 `forbidden` when the event carries no IAM principal (an admin method
 *   without AWS_IAM authorization, which the stack never builds).
 */
export function auditContextOf(event: APIGatewayProxyEvent, reason?: string): AuditContext {
  const { identity, requestId } = event.requestContext;
  if (!identity.userArn) {
    throw new ApiError('forbidden', 'The request carries no IAM principal (sign it with SigV4).');
  }
  return {
    actor: { type: 'iam', id: identity.userArn },
    requestId,
    ...(identity.sourceIp && { sourceIp: identity.sourceIp }),
    ...(identity.userAgent && { userAgent: identity.userAgent }),
    ...(reason !== undefined && { reason }),
  };
}
