/**
 * vitest setup file, run in each test file's worker before the file's imports: points the
 * DynamoDB clients at the run's DynamoDB Local and creates fresh tables for this file only, named
 * `<localName>-<random id>`, so that test files never see each other's data. It sets
 * DYNAMODB_ENDPOINT, the run's credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION),
 * each table's env var (PETS_TABLE_NAME, KEYS_TABLE_NAME, COUNTERS_TABLE_NAME), which the
 * functions read at module load, and a random cursor key (CURSOR_KEY) for listPets.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { newCursorKey } from '../../infra/local/cursor-key.ts';
import { credentialsEnv } from '../../infra/local/stack-files.ts';
import { createTables } from '../../infra/local/tables.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { CURSOR_KEY_ENV } from '../../shared/pets/cursor.ts';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
Object.assign(process.env, credentialsEnv(inject('dynamoCredentials')));
process.env[CURSOR_KEY_ENV] = newCursorKey();

const suffix = randomBytes(4).toString('hex');
const client = createDocumentClient();
Object.assign(process.env, await createTables(client, (table) => `${table.localName}-${suffix}`));
client.destroy();
