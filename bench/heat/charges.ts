/**
 * What one DynamoDB call costs, and on which partition: DynamoDB's billing rules applied to the
 * call's input and output (document form, as `@aws-sdk/lib-dynamodb` hands them to a middleware at
 * its `initialize` step), with the units DynamoDB Local reports (`ReturnConsumedCapacity:
 * INDEXES`) where it reports them. Rules: DynamoDB Developer Guide, "Read and write capacity
 * units", "Item sizes and formats", "Managing capacity for transactions".
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IndexDefinition, TableDefinition } from '../../shared/dynamodb/tables.ts';
import { itemSize, readUnits, writeUnits } from './item-size.ts';

/** Which of a partition's two limits a charge counts against. */
export type CapacityKind = 'write' | 'read';

/** Units one call consumed on one partition key value of a table or a GSI. */
export interface Charge {
  /** The table's `localName`, or `<localName>/<indexName>` for a GSI. */
  readonly target: string;
  /** `<partition key attribute>=<value>`; `?` when the call does not carry the value. */
  readonly partition: string;
  readonly kind: CapacityKind;
  /** Capacity units (WCU for writes, RCU for reads). */
  readonly units: number;
}

/** A table or GSI as the meter charges it: its label and key attributes. */
interface KeyedTarget {
  readonly label: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

/** A table of the service under the name it has in this run, with its GSIs. */
export interface MeteredTable extends KeyedTarget {
  readonly indexes: ReadonlyMap<string, KeyedTarget>;
}

/** The tables of a run by their names there; @returns undefined for a table the service lacks. */
export type TableSchema = (tableName: string) => MeteredTable | undefined;

/**
 * The schema of `tables` (shared/dynamodb/tables.ts) under the names of one run.
 * @param names Each definition's `envVar` → its table name, as `createTables` returns them.
 */
export function schemaOf(
  tables: readonly TableDefinition[],
  names: Readonly<Record<string, string>>,
): TableSchema {
  const keyed = (label: string, index: TableDefinition | IndexDefinition): KeyedTarget => ({
    label,
    partitionKey: index.partitionKey.name,
    sortKey: 'sortKey' in index ? index.sortKey?.name : undefined,
  });
  const byName = new Map(
    tables.map((table): [string | undefined, MeteredTable] => [
      names[table.envVar],
      {
        ...keyed(table.localName, table),
        indexes: new Map(
          table.globalSecondaryIndexes.map((index) => [
            index.indexName,
            keyed(`${table.localName}/${index.indexName}`, index),
          ]),
        ),
      },
    ]),
  );
  return (tableName) => byName.get(tableName);
}

/** One call as a middleware sees it: the operation, e.g. `PutItem`, and its outcome. */
export interface MeteredCall {
  readonly operation: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly output?: Readonly<Record<string, unknown>>;
  readonly error?: unknown;
}

type Item = Readonly<Record<string, unknown>>;

/** The reported capacity of one table (`ReturnConsumedCapacity: INDEXES`). */
interface Reported {
  TableName?: string;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/** The breakdown DynamoDB reported for `tableName`, if it reported one. */
function reportedFor(output: MeteredCall['output'], tableName: string): Reported | undefined {
  const consumed = [output?.ConsumedCapacity ?? []].flat() as Reported[];
  return consumed.find((entry) => entry.TableName === tableName && entry.Table);
}

function tableOf(schema: TableSchema, tableName: unknown): MeteredTable {
  const table = schema(String(tableName));
  if (!table) throw new Error(`The heat meter knows no table ${String(tableName)}`);
  return table;
}

/** `name=value` of `target`'s partition key in `item`, or `?` when the item lacks it. */
function partitionOf(target: KeyedTarget, item: Item | undefined): string {
  const value = item?.[target.partitionKey];
  return value === undefined ? '?' : `${target.partitionKey}=${String(value)}`;
}

/** `units` written on `target`'s partition of `item`. */
function write(target: KeyedTarget, item: Item, units: number): Charge {
  return { target: target.label, partition: partitionOf(target, item), kind: 'write', units };
}

/** Whether `item` carries the index's key attributes, i.e. appears in it. */
function carriesKeys(index: KeyedTarget, item: Item): boolean {
  return [index.partitionKey, index.sortKey].every((name) => !name || item[name] !== undefined);
}

/** A write of one item: `image` is the item as the call shows it (the Put's item, else the key). */
interface ItemWrite {
  readonly table: MeteredTable;
  readonly image: Item;
  /** The item's bytes when the call shows it whole (a Put). */
  readonly bytes?: number;
  readonly reported?: Reported;
  /** 2 in a transaction (prepare and commit), else 1. */
  readonly factor: number;
}

/**
 * The table's and each GSI's write units of a written item: as reported, else by its size (1 KB
 * minimum), each GSI whose key attributes the item carries on that item's partition key value.
 */
function itemWriteCharges({ table, image, bytes, reported, factor }: ItemWrite): Charge[] {
  const units = (reportedUnits: number | undefined) =>
    reportedUnits ?? factor * writeUnits(bytes ?? 0);
  const charges = [write(table, image, units(reported?.Table?.CapacityUnits))];
  for (const [name, index] of table.indexes) {
    const indexUnits = reported
      ? (reported.GlobalSecondaryIndexes?.[name]?.CapacityUnits ?? 0)
      : carriesKeys(index, image)
        ? units(undefined)
        : 0;
    if (indexUnits > 0) charges.push(write(index, image, indexUnits));
  }
  return charges;
}

/** A refused condition still writes: the existing item's size (1 WCU if none), table only. */
function refusedWriteCharges(table: MeteredTable, image: Item, error: unknown): Charge[] {
  const existing = (error as { Item?: Record<string, AttributeValue> }).Item;
  const bytes = existing ? itemSize(unmarshall(existing)) : 0;
  return [write(table, image, writeUnits(bytes))];
}

type WriteAction = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/** The item a write action shows: a Put's item; else its key with any attributes returned. */
function imageOf(action: WriteAction, input: Item, returned?: unknown): Item {
  if (action === 'Put') return input.Item as Item;
  return { ...(input.Key as Item), ...(returned as Item | undefined) };
}

/** Charges of a PutItem, UpdateItem or DeleteItem. */
function singleWriteCharges(action: WriteAction, call: MeteredCall, schema: TableSchema): Charge[] {
  const { input, output, error } = call;
  const table = tableOf(schema, input.TableName);
  const image = imageOf(action, input, output?.Attributes);
  if (error) {
    return error instanceof ConditionalCheckFailedException
      ? refusedWriteCharges(table, image, error)
      : [];
  }
  return itemWriteCharges({
    table,
    image,
    bytes: action === 'Put' ? itemSize(image) : undefined,
    reported: reportedFor(output, String(input.TableName)),
    factor: 1,
  });
}

/**
 * Charges of a TransactWriteItems: each item twice its size's units; a table's reported units when
 * it is the transaction's only item on that table (DynamoDB reports per table, not per item).
 * A cancelled transaction: each item's table, twice the minimum.
 */
function transactionCharges(call: MeteredCall, schema: TableSchema): Charge[] {
  const actions = (call.input.TransactItems as Record<WriteAction, Item>[]).flatMap((entry) =>
    Object.entries(entry).map(([action, input]) => ({ action: action as WriteAction, input })),
  );
  const itemsOn = (tableName: unknown) =>
    actions.filter(({ input }) => input.TableName === tableName).length;
  return actions.flatMap(({ action, input }) => {
    const table = tableOf(schema, input.TableName);
    const image = imageOf(action, input);
    if (call.error) {
      const name = (call.error as Error).name;
      if (name !== 'TransactionCanceledException') return [];
      return [write(table, image, 2)];
    }
    const alone = itemsOn(input.TableName) === 1;
    return itemWriteCharges({
      table,
      image,
      bytes: action === 'Put' ? itemSize(image) : undefined,
      reported: alone ? reportedFor(call.output, String(input.TableName)) : undefined,
      factor: 2,
    });
  });
}

/**
 * The partition key value a Query's key condition names: the `<name> = <:value>` term whose name
 * is the target's partition key attribute.
 */
function queriedPartition(target: KeyedTarget, input: Item): string {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const term of String(input.KeyConditionExpression).split(/\s+AND\s+/i)) {
    const match = /^\(?\s*([#\w.]+)\s*=\s*(:\w+)\s*\)?$/.exec(term.trim());
    const name = match?.[1] && (names[match[1]] ?? match[1]);
    if (match?.[2] && name === target.partitionKey)
      return partitionOf(target, { [name]: values[match[2]] });
  }
  return '?';
}

/** Read charges: as reported, but never under the minimum DynamoDB bills (an empty Query too). */
function readCharge(
  target: KeyedTarget,
  partition: string,
  reported: number | undefined,
  bytes: number,
  consistent: boolean,
): Charge[] {
  const units = Math.max(reported ?? 0, readUnits(bytes, consistent));
  return [{ target: target.label, partition, kind: 'read', units }];
}

/** Charges of a GetItem or a Query (GSI reads are eventually consistent). */
function readCharges(
  operation: 'GetItem' | 'Query',
  call: MeteredCall,
  schema: TableSchema,
): Charge[] {
  const { input, output } = call;
  if (call.error) return [];
  const table = tableOf(schema, input.TableName);
  const reported = reportedFor(output, String(input.TableName));
  if (operation === 'GetItem') {
    const item = output?.Item as Item | undefined;
    return readCharge(
      table,
      partitionOf(table, input.Key as Item),
      reported?.Table?.CapacityUnits,
      item ? itemSize(item) : 0,
      input.ConsistentRead === true,
    );
  }
  const indexName = input.IndexName as string | undefined;
  const target = indexName ? table.indexes.get(indexName) : table;
  if (!target) throw new Error(`The heat meter knows no index ${indexName} of ${table.label}`);
  const items = (output?.Items ?? []) as Item[];
  const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
  const units = indexName
    ? reported?.GlobalSecondaryIndexes?.[indexName]?.CapacityUnits
    : reported?.Table?.CapacityUnits;
  return readCharge(
    target,
    queriedPartition(target, input),
    units,
    bytes,
    !indexName && input.ConsistentRead === true,
  );
}

/** Operation names, low-level (`PutItemCommand`) or document client (`PutCommand`), as charged. */
const OPERATIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  Get: 'GetItem',
  TransactWrite: 'TransactWriteItems',
};

/**
 * The units a call consumed, per (table or GSI, partition key value): writes 1 WCU per KB of the
 * item (DynamoDB Local's figure: the larger of the old and new images), twice in a transaction,
 * each GSI holding the item its own units on its own key value; a refused conditional write the
 * existing item's size, at least 1 WCU; reads per 4 KB read, half if eventually consistent, an
 * empty Query or a missing item still 0.5 or 1. Errors other than refused conditions cost nothing.
 * @param call.operation e.g. `PutItem`, `Put`, `PutItemCommand`.
 * @throws Error for a table the schema lacks, or an operation the meter has no rule for.
 */
export function chargesOf(call: MeteredCall, schema: TableSchema): Charge[] {
  const name = call.operation.replace(/Command$/, '');
  const operation = OPERATIONS[name] ?? name;
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return singleWriteCharges(operation.replace(/Item$/, '') as WriteAction, call, schema);
    case 'TransactWriteItems':
      return transactionCharges(call, schema);
    case 'GetItem':
    case 'Query':
      return readCharges(operation, call, schema);
    default:
      throw new Error(
        `The heat meter has no billing rule for ${operation}: add one to bench/heat/charges.ts`,
      );
  }
}
