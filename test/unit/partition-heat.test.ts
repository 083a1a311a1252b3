/**
 * The heat meter's billing rules (bench/heat/charges.ts) and its shares and verdict
 * (bench/heat/heat-meter.ts), on calls as a middleware sees them: no DynamoDB involved.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { chargesOf, type MeteredCall, schemaOf } from '../../bench/heat/charges.ts';
import { HeatMeter, overThreshold } from '../../bench/heat/heat-meter.ts';
import { itemSize } from '../../bench/heat/item-size.ts';
import { instancesFor } from '../../bench/heat/simulation.ts';
import {
  COUNTERS_TABLE,
  IDEMPOTENCY_TABLE,
  PETS_TABLE,
  STATUS_INDEX,
  TABLES,
} from '../../shared/dynamodb/tables.ts';

// GIVEN the service's tables under this run's names
const NAMES = Object.fromEntries(TABLES.map((table) => [table.envVar, `${table.localName}-run`]));
const schema = schemaOf(TABLES, NAMES);
const PETS = NAMES[PETS_TABLE.envVar] ?? '';
const INDEX = `${PETS_TABLE.localName}/${STATUS_INDEX}`;
const STATUS_KEY = PETS_TABLE.globalSecondaryIndexes[0]?.partitionKey.name;
const ID_KEY = PETS_TABLE.partitionKey.name;

/** A pet item with a name of `nameLength` bytes. */
const pet = (id: number, nameLength = 3) => ({
  [ID_KEY]: id,
  name: 'x'.repeat(nameLength),
  [STATUS_KEY ?? '']: 'available',
});

const charges = (call: MeteredCall) => chargesOf(call, schema);

describe('the heat meter charges writes', () => {
  it('charges a put 1 WCU per KB started, on the table and on the GSI that holds the item', () => {
    // Names and values count: the name fills the item up to 1,024 bytes, then one byte more.
    const fill = 1_024 - itemSize(pet(7, 0));
    const fits = pet(7, fill);
    const over = pet(8, fill + 1);
    expect(itemSize(fits)).toBe(1_024);

    const put = (Item: Record<string, unknown>) =>
      charges({ operation: 'PutItemCommand', input: { TableName: PETS, Item }, output: {} });

    expect(put(fits)).toEqual([
      { target: PETS_TABLE.localName, partition: `${ID_KEY}=7`, kind: 'write', units: 1 },
      { target: INDEX, partition: `${STATUS_KEY}=available`, kind: 'write', units: 1 },
    ]);
    expect(put(over).map((charge) => charge.units)).toEqual([2, 2]);
    expect(put(pet(9, 3_000)).map((charge) => charge.units)).toEqual([3, 3]);
  });

  it('charges no GSI when the item lacks its key attributes (the id sequence item)', () => {
    const result = charges({
      operation: 'UpdateItemCommand',
      input: { TableName: PETS, Key: { [ID_KEY]: 0 } },
      output: { Attributes: { value: 41 } },
    });

    expect(result).toEqual([
      { target: PETS_TABLE.localName, partition: `${ID_KEY}=0`, kind: 'write', units: 1 },
    ]);
  });

  it('takes the units DynamoDB reports per table and per GSI when it reports them', () => {
    const result = charges({
      operation: 'PutItemCommand',
      input: { TableName: PETS, Item: pet(3) },
      output: {
        ConsumedCapacity: {
          TableName: PETS,
          CapacityUnits: 7,
          Table: { CapacityUnits: 3 },
          GlobalSecondaryIndexes: { [STATUS_INDEX]: { CapacityUnits: 4 } },
        },
      },
    });

    expect(result.map((charge) => [charge.target, charge.units])).toEqual([
      [PETS_TABLE.localName, 3],
      [INDEX, 4],
    ]);
  });

  it('charges a refused conditional write the existing item, at least 1 WCU, and no GSI', () => {
    const refused = (Item?: Record<string, unknown>) =>
      charges({
        operation: 'PutItemCommand',
        input: { TableName: PETS, Item: pet(5), ConditionExpression: 'attribute_not_exists(id)' },
        error: new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: Item && marshall(Item),
        }),
      });

    expect(refused()).toEqual([
      { target: PETS_TABLE.localName, partition: `${ID_KEY}=5`, kind: 'write', units: 1 },
    ]);
    expect(refused(pet(5, 2_500))[0]?.units).toBe(3);
  });

  it('charges nothing for a call that failed otherwise (throttled, invalid)', () => {
    const error = Object.assign(new Error('throttled'), { name: 'ThrottlingException' });

    expect(
      charges({ operation: 'PutItemCommand', input: { TableName: PETS, Item: pet(5) }, error }),
    ).toEqual([]);
  });

  it('doubles a transaction, each item on its own table, partition and GSI', () => {
    const records = NAMES[IDEMPOTENCY_TABLE.envVar];
    const result = charges({
      operation: 'TransactWriteItemsCommand',
      input: {
        TransactItems: [
          { Put: { TableName: PETS, Item: pet(11) } },
          { Update: { TableName: records, Key: { id: 'key_1#abc' } } },
        ],
      },
      output: {},
    });

    expect(result).toEqual([
      { target: PETS_TABLE.localName, partition: `${ID_KEY}=11`, kind: 'write', units: 2 },
      { target: INDEX, partition: `${STATUS_KEY}=available`, kind: 'write', units: 2 },
      { target: IDEMPOTENCY_TABLE.localName, partition: 'id=key_1#abc', kind: 'write', units: 2 },
    ]);
  });
});

describe('the heat meter charges reads', () => {
  const query = (output: Record<string, unknown>, input: Record<string, unknown> = {}) =>
    charges({
      operation: 'QueryCommand',
      input: {
        TableName: PETS,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#s = :s AND #id > :after',
        ExpressionAttributeNames: { '#s': STATUS_KEY, '#id': ID_KEY },
        ExpressionAttributeValues: { ':s': 'pending', ':after': 0 },
        ...input,
      },
      output,
    });

  it('charges an empty Query 0.5 RCU on the queried key value, though DynamoDB Local reports 0', () => {
    const reportedZero = {
      Items: [],
      ConsumedCapacity: {
        TableName: PETS,
        Table: { CapacityUnits: 0 },
        GlobalSecondaryIndexes: { [STATUS_INDEX]: { CapacityUnits: 0 } },
      },
    };

    expect(query(reportedZero)).toEqual([
      { target: INDEX, partition: `${STATUS_KEY}=pending`, kind: 'read', units: 0.5 },
    ]);
  });

  it('charges a Query the items it read, rounded up per 4 KB, half for an eventually consistent read', () => {
    const items = Array.from({ length: 10 }, (_, i) => pet(i + 1, 1_000)); // 10 × about 1 KB

    expect(query({ Items: items })[0]?.units).toBe(1.5);
  });

  it('charges a strongly consistent GetItem of a missing item 1 RCU on its key', () => {
    const counters = NAMES[COUNTERS_TABLE.envVar];
    const result = charges({
      operation: 'GetItemCommand',
      input: { TableName: counters, Key: { name: 'pet-id' }, ConsistentRead: true },
      output: {},
    });

    expect(result).toEqual([
      { target: COUNTERS_TABLE.localName, partition: 'name=pet-id', kind: 'read', units: 1 },
    ]);
  });

  it('refuses an operation it has no rule for, and a table the service lacks', () => {
    expect(() =>
      charges({ operation: 'ScanCommand', input: { TableName: PETS }, output: {} }),
    ).toThrow(/no billing rule for Scan/);
    expect(() =>
      charges({ operation: 'GetItemCommand', input: { TableName: 'other', Key: {} }, output: {} }),
    ).toThrow(/knows no table other/);
  });
});

describe('the heat meter judges shares', () => {
  const write = (partition: string, units: number) => ({
    target: PETS_TABLE.localName,
    partition,
    kind: 'write' as const,
    units,
  });

  it('reports each partition by its busiest measured second, scaled, as a share of its limit', () => {
    const meter = new HeatMeter();
    // GIVEN a warm-up second (0) and two measured seconds (1, 2)
    meter.record(500, [write('id=0', 5_000)]);
    meter.record(1_200, [write('id=0', 300), write('id=1', 100)]);
    meter.record(1_900, [write('id=0', 300)]);
    meter.record(2_100, [write('id=0', 400), { ...write('id=0', 600), kind: 'read' }]);

    // WHEN the measured seconds are read at a sample of 1 instance in 2
    const heats = meter.hottest(1_000, 2, 2);

    // THEN the busiest second counts (600 in second 1), doubled; reads against 3,000
    expect(heats).toEqual([
      {
        target: PETS_TABLE.localName,
        partition: 'id=0',
        kind: 'write',
        unitsPerSecond: 1_200,
        share: 1.2,
      },
      {
        target: PETS_TABLE.localName,
        partition: 'id=0',
        kind: 'read',
        unitsPerSecond: 1_200,
        share: 0.4,
      },
      {
        target: PETS_TABLE.localName,
        partition: 'id=1',
        kind: 'write',
        unitsPerSecond: 200,
        share: 0.2,
      },
    ]);
  });

  it('fails a partition above 0.8 of its limit, and passes one at exactly 0.8', () => {
    const meter = new HeatMeter();
    meter.record(0, [
      write('id=0', 800),
      write('id=1', 801),
      { ...write('id=2', 2_400), kind: 'read' },
    ]);

    expect(overThreshold(meter.hottest(0, 1)).map((heat) => heat.partition)).toEqual(['id=1']);
  });

  it('simulates rate × 0.02 s of function instances', () => {
    expect(instancesFor(10_000)).toBe(200);
    expect(instancesFor(30_000)).toBe(600);
    expect(instancesFor(10)).toBe(1);
  });
});
