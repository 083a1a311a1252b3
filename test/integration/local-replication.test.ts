/**
 * The model of global tables of the two-region local stack (infra/local/replication.ts) on two
 * DynamoDB Locals of its own, with the stack's tables: a change reaches the other region after
 * the lag and does not come back, last writer wins on an item written in both regions within the
 * lag, with the conflict counted and listed, quick writes of one item keep their order, and
 * identical writes are no conflict.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/create-tables.ts';
import { type DynamoDBLocal, startDynamoDBLocal } from '../../infra/local/dynamodb-local.ts';
import { type Replication, startReplication } from '../../infra/local/replication.ts';
import { generateCredentials } from '../../infra/local/stack-files.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import { stackPort } from '../support/local-stack.ts';

const credentials = generateCredentials();
const names = ['us-east-1', 'eu-west-1'] as const;
const pets = PETS_TABLE.localName;
/** Long enough that two calls of the test fall within it on a busy machine. */
const LAG_MS = 1_500;

interface Region {
  readonly name: string;
  readonly dynamo: DynamoDBLocal;
  readonly client: ReturnType<typeof createDocumentClient>;
}

let regions: Region[] = [];
let tables: string[] = [];
let replication: Replication | undefined;

beforeAll(async () => {
  regions = await Promise.all(
    names.map(async (name) => {
      const dynamo = await startDynamoDBLocal({ port: await stackPort(), credentials });
      const client = createDocumentClient({ endpoint: dynamo.endpoint, local: credentials });
      tables = Object.values(await createTables(client));
      return { name, dynamo, client };
    }),
  );
});

afterEach(async () => {
  await replication?.stop();
  replication = undefined;
});

afterAll(async () => {
  for (const { dynamo, client } of regions) {
    client.destroy();
    await dynamo.stop();
  }
});

async function replicate(): Promise<Replication> {
  replication = await startReplication({
    regions: regions.map(({ name, dynamo }) => ({ name, endpoint: dynamo.endpoint })),
    tables,
    credentials,
    lagMs: LAG_MS,
  });
  return replication;
}

function region(index: 0 | 1): Region {
  return regions[index] as Region;
}

async function petIn(index: 0 | 1, id: number): Promise<Record<string, unknown> | undefined> {
  const { Item } = await region(index).client.send(
    new GetCommand({ TableName: pets, Key: { id }, ConsistentRead: true }),
  );
  return Item;
}

/** Waits until `condition` holds, checking every 100 ms, for at most 30 s. */
async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('Not within 30 s');
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

describe('the replication model of global tables', { timeout: 90_000 }, () => {
  it('writes a change in the other region after the lag, and never back to where it was made', async () => {
    const model = await replicate();

    await region(0).client.send(
      new PutCommand({ TableName: pets, Item: { id: 101, name: 'Rex' } }),
    );
    expect(await petIn(1, 101)).toBeUndefined();
    await until(async () => (await petIn(1, 101)) !== undefined);
    expect(await petIn(1, 101)).toEqual({ id: 101, name: 'Rex' });

    await region(1).client.send(
      new PutCommand({ TableName: pets, Item: { id: 101, name: 'Max' } }),
    );
    await until(async () => (await petIn(0, 101))?.name === 'Max');
    await region(0).client.send(new DeleteCommand({ TableName: pets, Key: { id: 101 } }));
    await until(async () => (await petIn(1, 101)) === undefined);
    // Three lags more: an echo would have been written back by now, and counted.
    await new Promise((wake) => setTimeout(wake, 3 * LAG_MS));

    expect(model.figures()).toEqual({ lagMs: LAG_MS, replicated: 3, conflicts: [], pending: 0 });
    expect(await petIn(0, 101)).toBeUndefined();
    expect(await petIn(1, 101)).toBeUndefined();
  });

  it('keeps the last write of an item written in both regions within the lag, and lists the conflict', async () => {
    const model = await replicate();

    await region(0).client.send(
      new PutCommand({ TableName: pets, Item: { id: 202, name: 'first' } }),
    );
    // Seen by the model (on its way to the other region) before the second write is made.
    await until(() => model.figures().pending === 1);
    await region(1).client.send(
      new PutCommand({ TableName: pets, Item: { id: 202, name: 'second', tags: ['late'] } }),
    );
    await until(() => model.figures().pending === 0);

    expect(await petIn(0, 202)).toEqual({ id: 202, name: 'second', tags: ['late'] });
    expect(await petIn(1, 202)).toEqual({ id: 202, name: 'second', tags: ['late'] });
    expect(model.figures()).toMatchObject({
      replicated: 1,
      conflicts: [{ table: pets, key: { id: 202 }, winner: 'eu-west-1', loser: 'us-east-1' }],
    });
  });

  it('replicates writes of one item made in one region in quick succession in their order, with no conflict', async () => {
    const model = await replicate();

    for (const name of ['a', 'b', 'c']) {
      await region(0).client.send(new PutCommand({ TableName: pets, Item: { id: 404, name } }));
    }
    await until(() => model.figures().pending > 0);
    await until(() => model.figures().pending === 0);

    expect(await petIn(1, 404)).toEqual({ id: 404, name: 'c' });
    expect(model.figures()).toMatchObject({ replicated: 3, conflicts: [] });
  });

  it('counts no conflict when both regions write the same item alike within the lag', async () => {
    const model = await replicate();

    for (const index of [0, 1] as const) {
      await region(index).client.send(
        new PutCommand({ TableName: pets, Item: { id: 303, name: 'same' } }),
      );
    }
    await until(() => model.figures().pending === 2);
    await until(() => model.figures().pending === 0);

    expect(model.figures().conflicts).toEqual([]);
    expect(await petIn(0, 303)).toEqual({ id: 303, name: 'same' });
    expect(await petIn(1, 303)).toEqual({ id: 303, name: 'same' });
  });
});
