/**
 * Counting what requests cost in DynamoDB: calls, and the write and read capacity units DynamoDB
 * reports for them (`ReturnConsumedCapacity: TOTAL`).
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Running totals of a meter. */
export interface MeterTotals {
  calls: number;
  /** Capacity units consumed, read and write together (the bench's calls are writes or reads). */
  units: number;
  /** Calls per table, for the calls that name one table (`TableName`). */
  tables: Record<string, number>;
  /** Calls per command, e.g. `BatchGetItemCommand`. */
  commands: Record<string, number>;
}

/** Totals of nothing yet. */
const noCalls = (): MeterTotals => ({ calls: 0, units: 0, tables: {}, commands: {} });

type ConsumedCapacity = { CapacityUnits?: number };

/** Counts every call `client` sends and the capacity units DynamoDB reports for it. */
export function meter(client: DynamoDBDocumentClient, totals: MeterTotals = noCalls()) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      totals.calls += 1;
      const command = context.commandName ?? '';
      totals.commands[command] = (totals.commands[command] ?? 0) + 1;
      const table = (args.input as { TableName?: string }).TableName;
      if (table) totals.tables[table] = (totals.tables[table] ?? 0) + 1;
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      try {
        const result = await next(args);
        const used = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
          .ConsumedCapacity;
        for (const item of [used ?? []].flat()) totals.units += item.CapacityUnits ?? 0;
        return result;
      } catch (error) {
        // A refused conditional write still consumes a write unit (DynamoDB pricing).
        totals.units += 1;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchMeter' },
  );
  return totals;
}

/**
 * Meters every document client of the process, including those the functions create at module
 * scope, from their next call on.
 */
export function meterEveryDocumentClient(): MeterTotals {
  const totals = noCalls();
  const metered = new WeakSet<DynamoDBDocumentClient>();
  const send = DynamoDBDocumentClient.prototype.send;
  DynamoDBDocumentClient.prototype.send = function meteredSend(
    this: DynamoDBDocumentClient,
    ...args: Parameters<typeof send>
  ) {
    if (!metered.has(this)) {
      meter(this, totals);
      metered.add(this);
    }
    return (send as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof send;
  return totals;
}
