/** Who calls the admin API, from API Gateway's IAM authorization: an admin change's only actor source. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AuditContext } from '../audit/entry.ts';
import { ApiError } from './http-errors.ts';

/**
 * The audit context of an admin request: its IAM principal, address, request id and `reason`.
 * @throws ApiError 403 `forbidden` without an IAM principal (a method the stack never builds).
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
