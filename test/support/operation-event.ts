/**
 * The event API Gateway passes the function of an admin or portal operation for a test's request:
 * the operation's path with the key id, the query, and a JSON body (test/support/admin-event.ts,
 * test/support/portal-handlers.ts).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createProxyEvent, type ProxyRequest } from '../../infra/local/events.ts';

/** What a test sends to one operation. */
export interface OperationRequest {
  readonly keyId?: string;
  /** A JSON body, sent as application/json; a string as is. */
  readonly body?: unknown;
  readonly query?: Record<string, string>;
}

/**
 * The event of the operation at `method` and `path` (e.g. `/keys/{keyId}`) for `request`, with
 * `headers` beside its Content-Type and `event`'s other fields (source address, stage).
 */
export function operationEvent(
  { method, path }: { readonly method: string; readonly path: string },
  request: OperationRequest,
  headers: Record<string, string>,
  event: Pick<ProxyRequest, 'sourceIp' | 'stage'>,
): APIGatewayProxyEvent {
  const keyId = request.keyId ?? '';
  const body =
    request.body === undefined
      ? null
      : typeof request.body === 'string'
        ? request.body
        : JSON.stringify(request.body);
  return createProxyEvent({
    method,
    resource: path,
    path: path.replace('{keyId}', keyId),
    pathParameters: path.includes('{keyId}') ? { keyId } : null,
    query: new URLSearchParams(request.query ?? {}),
    headers: { ...(body !== null && { 'Content-Type': 'application/json' }), ...headers },
    body: body === null ? null : Buffer.from(body),
    ...event,
  });
}
