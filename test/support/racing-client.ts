/**
 * A client of DynamoDB Local that loses a race on purpose: a concurrent change lands between a
 * caller's read and its write, every time.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';

/**
 * A client of the run's DynamoDB Local whose first call whose input `isWrite` picks waits for
 * `change` to be made (through another client) first.
 */
export function racingClient(
  change: () => Promise<unknown>,
  isWrite: (input: object) => boolean,
): DynamoDBDocumentClient {
  const racing = createDocumentClient();
  let pending: (() => Promise<unknown>) | undefined = change;
  racing.middlewareStack.add(
    (next) => async (args) => {
      const run = pending;
      if (run && isWrite(args.input as object)) {
        pending = undefined;
        await run();
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  return racing;
}
