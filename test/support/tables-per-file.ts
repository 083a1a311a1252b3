/**
 * vitest setup file of the `dynamodb` project, run in each test file's worker before its imports:
 * points the DynamoDB clients at the run's DynamoDB Local (DYNAMODB_ENDPOINT and the run's
 * credentials) and creates fresh tables for this file only, `<localName>-<random id>`, named in
 * each table's env var (read by the functions at module load); sets a random CURSOR_KEY.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createTables } from '../../infra/local/create-tables.ts';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { credentialsEnv } from '../../infra/local/stack-files.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
Object.assign(process.env, credentialsEnv(inject('dynamoCredentials')));
process.env.CURSOR_KEY = newSecretValue();

const suffix = randomBytes(4).toString('hex');
const client = createDocumentClient();
Object.assign(process.env, await createTables(client, (table) => `${table.localName}-${suffix}`));
client.destroy();
