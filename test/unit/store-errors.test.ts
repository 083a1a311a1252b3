/**
 * Which store failures are "not now" (StoreUnavailableError, a 503 with Retry-After) and which are
 * bugs (a 500): the SDK's own classification (`@smithy/core/retry`) and the three cases it leaves to
 * its caller, on errors as the DynamoDB client and Node's sockets throw them.
 */
import {
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, storeErrorOf } from '../../shared/store-errors.ts';

/** What the client gives each error it deserializes: the response's status. */
const answered = (httpStatusCode: number) => ({ $metadata: { httpStatusCode }, message: 'x' });

/** An error DynamoDB answered that the client has no class for, as it deserializes one. */
const unmodelled = (name: string, $fault: 'client' | 'server', httpStatusCode: number) =>
  new DynamoDBServiceException({ name, $fault, ...answered(httpStatusCode) });

/** An error as Node's socket or the SDK's HTTP handler throws it. */
const thrown = (fields: { name?: string; code?: string }) =>
  Object.assign(new Error(fields.code ?? fields.name), fields);

/** A case: what the store did, and the error the client threw for it. */
type Case = readonly [string, Error];

describe('storeErrorOf', () => {
  it.each<Case>([
    ['throttled', new ThrottlingException(answered(400))],
    ['over its provisioned throughput', new ProvisionedThroughputExceededException(answered(400))],
    ['over the account limit', new RequestLimitExceeded(answered(400))],
    ['failing inside DynamoDB', new InternalServerError(answered(500))],
    ['unavailable', unmodelled('ServiceUnavailable', 'server', 503)],
    ['in conflict with another transaction', new TransactionConflictException(answered(400))],
    ['without its table', new ResourceNotFoundException(answered(400))],
    ["past the SDK's timeout", thrown({ name: 'TimeoutError' })],
    ["past the invocation's deadline", thrown({ name: 'AbortError' })],
    ...['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].map(
      (code): Case => [`down (${code})`, thrown({ code })],
    ),
    ...['EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].map(
      (code): Case => [`unreachable (${code})`, thrown({ code })],
    ),
  ])('calls a store %s unavailable, keeping its error as the cause', (_, error) => {
    const classified = storeErrorOf(error);

    expect(classified).toBeInstanceOf(StoreUnavailableError);
    expect((classified as Error).cause).toBe(error);
  });

  it.each<Case>([
    ['a refused condition', new ConditionalCheckFailedException(answered(400))],
    ['a cancelled transaction', new TransactionCanceledException(answered(400))],
    ['a malformed request', unmodelled('ValidationException', 'client', 400)],
    // The SDK counts it among clock-skew errors; here it is a missing grant, not a passing fault.
    ['a denied call', unmodelled('AccessDeniedException', 'client', 400)],
    ['a built-in RangeError', new RangeError('Invalid time value')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ])('leaves %s as it is: a bug or the caller’s to handle', (_, error) => {
    expect(storeErrorOf(error)).toBe(error);
  });
});
