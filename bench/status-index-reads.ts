/**
 * What a client's reads of `status-index` cost, counted by a middleware on the client (as
 * shared/dynamodb/call-log.ts logs each call), so that the pet store itself carries no bench
 * instrumentation: read by bench/pagination.ts and the tests of paging's cost.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { STATUS_INDEX } from '../shared/dynamodb/tables.ts';

/** Running totals of the Queries on `status-index`: calls, items read (`ScannedCount`), read units. */
export interface StatusIndexReads {
  calls: number;
  itemsRead: number;
  readUnits: number;
}

/**
 * Counts every Query on `status-index` that `client` sends from now on, asking DynamoDB for its
 * consumed capacity (`ReturnConsumedCapacity: TOTAL`) unless the call asks for more already.
 * @param client The document client (its middleware stack is the DynamoDB client's).
 * @returns The totals, at zero, which each Query's answer then adds to.
 */
export function countStatusIndexReads(client: DynamoDBDocumentClient): StatusIndexReads {
  const reads: StatusIndexReads = { calls: 0, itemsRead: 0, readUnits: 0 };
  client.middlewareStack.add(
    (next, context) =>
      async function countStatusIndexRead(args) {
        const input = args.input as { IndexName?: string; ReturnConsumedCapacity?: string };
        if (context.commandName !== 'QueryCommand' || input.IndexName !== STATUS_INDEX) {
          return next(args);
        }
        const result = await next({
          ...args,
          input: { ...input, ReturnConsumedCapacity: input.ReturnConsumedCapacity ?? 'TOTAL' },
        });
        const output = result.output as {
          Count?: number;
          ScannedCount?: number;
          ConsumedCapacity?: { CapacityUnits?: number };
        };
        reads.calls += 1;
        reads.itemsRead += output.ScannedCount ?? output.Count ?? 0;
        reads.readUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
        return result;
      },
    { step: 'initialize', name: 'countStatusIndexReads' },
  );
  return reads;
}
