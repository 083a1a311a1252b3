import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { grantedEndpoint } from '../../infra/local/iam.ts';
import { type FunctionDefinition, routeOf } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import {
  IDEMPOTENCY_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
  STATUS_INDEX,
  type TableDefinition,
} from '../../shared/dynamodb/tables.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';

const settings = readSettings();
const tableName = (table: TableDefinition) => requiredSetting(settings, table.envVar);

const clients: ReturnType<typeof createDocumentClient>[] = [];
afterAll(() => {
  for (const client of clients) client.destroy();
});

/** A client of this file's DynamoDB Local tables through the endpoint of `definition`'s role. */
async function clientOf(definition: FunctionDefinition) {
  const client = createDocumentClient({ endpoint: await grantedEndpoint(definition, settings) });
  clients.push(client);
  return client;
}

/** What a call fails with, or undefined when it succeeds. */
async function failure(call: Promise<unknown>) {
  return call.then(
    () => undefined,
    (error: unknown) => error as Error & { $metadata?: { httpStatusCode?: number } },
  );
}

const getPetFunction = await clientOf(routeOf('getPet'));
const petsArn = `arn:aws:dynamodb:us-east-1:000000000000:table/${tableName(PETS_TABLE)}`;

describe('grantedEndpoint (IAM on the local stack)', () => {
  it('lets a granted action on a granted table through to DynamoDB Local', async () => {
    const result = await getPetFunction.send(
      new GetCommand({ TableName: tableName(PETS_TABLE), Key: { id: 1 } }),
    );

    expect(result.$metadata.httpStatusCode).toBe(200);
  });

  it("refuses another action with DynamoDB's AccessDeniedException, and sends nothing", async () => {
    const id = Number.parseInt(randomBytes(4).toString('hex'), 16);
    const error = await failure(
      getPetFunction.send(new PutCommand({ TableName: tableName(PETS_TABLE), Item: { id } })),
    );

    expect(error?.name).toBe('AccessDeniedException');
    expect(error?.$metadata?.httpStatusCode).toBe(400);
    expect(error?.message).toBe(
      `User: arn:aws:sts::000000000000:assumed-role/petstore-local-GetPetFunctionRole/petstore-get-pet is not authorized to perform: dynamodb:PutItem on resource: ${petsArn} because no identity-based policy allows the dynamodb:PutItem action`,
    );
    const stored = await (await clientOf(routeOf('getPet'))).send(
      new GetCommand({ TableName: tableName(PETS_TABLE), Key: { id } }),
    );
    expect(stored.Item).toBeUndefined();
  });

  it('refuses a granted action on another table', async () => {
    const error = await failure(
      getPetFunction.send(
        new GetCommand({ TableName: tableName(KEYS_TABLE), Key: { keyHash: 'x' } }),
      ),
    );

    expect(error?.name).toBe('AccessDeniedException');
    expect(error?.message).toContain(`table/${tableName(KEYS_TABLE)} because`);
  });

  it('refuses a Query on an index that is not granted, and allows it where it is', async () => {
    const tableOnly = await clientOf({
      ...routeOf('listPets'),
      tableAccess: [{ table: PETS_TABLE, actions: ['dynamodb:Query'] }],
    });
    const query = () =>
      new QueryCommand({
        TableName: tableName(PETS_TABLE),
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'statusShard' },
        ExpressionAttributeValues: { ':s': 'sold#0' },
        Limit: 1,
      });

    const error = await failure(tableOnly.send(query()));

    expect(error?.name).toBe('AccessDeniedException');
    expect(error?.message).toContain(
      `dynamodb:Query on resource: ${petsArn}/index/${STATUS_INDEX} `,
    );
    expect(await failure((await clientOf(routeOf('listPets'))).send(query()))).toBeUndefined();
  });

  it('checks each item of a transaction against its own action and table, as IAM does', async () => {
    const createPet = await clientOf(routeOf('createPet'));
    const id = Number.parseInt(randomBytes(4).toString('hex'), 16);
    const idempotencyId = `iam-${id}`;
    const put = {
      Put: { TableName: tableName(PETS_TABLE), Item: { id, name: 'Tx', categoryId: 1 } },
    };
    const record = {
      Put: { TableName: tableName(IDEMPOTENCY_TABLE), Item: { id: idempotencyId } },
    };
    const conditionCheck = {
      ConditionCheck: {
        TableName: tableName(PETS_TABLE),
        Key: { id },
        ConditionExpression: 'attribute_not_exists(id)',
      },
    };

    const refused = await failure(
      createPet.send(new TransactWriteCommand({ TransactItems: [conditionCheck, record] })),
    );
    const allowed = await failure(
      createPet.send(new TransactWriteCommand({ TransactItems: [put, record] })),
    );

    expect(refused?.message).toContain(`dynamodb:ConditionCheckItem on resource: ${petsArn} `);
    expect(allowed).toBeUndefined();
  });
});
