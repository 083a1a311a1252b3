/**
 * IAM on the local stack: each function's DynamoDB client allows exactly what the function's role
 * is granted on AWS (its `tableAccess` in infra/routes.ts, from which ServiceFunction grants) and
 * refuses anything else with DynamoDB's AccessDeniedException. DynamoDB Local enforces no IAM.
 */
import { basename } from 'node:path';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientPolicy } from '../../shared/dynamodb/clients.ts';
import type { Settings } from '../../shared/settings.ts';
import type { FunctionDefinition } from '../routes.ts';
import { LOCAL_ACCOUNT_ID } from './events.ts';

/** Name of a function on the local stack, e.g. `petstore-create-pet`: its Lambda context's. */
export function localFunctionName(definition: FunctionDefinition): string {
  return `petstore-${basename(definition.entry, '.ts')}`;
}

/** One IAM action on one resource ARN, e.g. `dynamodb:GetItem` on `arn:…:table/petstore-pets`. */
interface Permission {
  readonly action: string;
  readonly resource: string;
}

/** What each item of a transaction needs: IAM checks TransactWriteItems and TransactGetItems per item. */
const TRANSACTION_ITEM_ACTIONS: Readonly<Record<string, string>> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** The parts of a request's input that name tables and indexes. */
interface RequestInput {
  TableName?: string;
  IndexName?: string;
  TransactItems?: readonly Record<string, { TableName?: string } | undefined>[];
  RequestItems?: Record<string, unknown>;
}

/**
 * Makes `client` refuse every DynamoDB call that `definition`'s role would not be allowed, as IAM
 * does: an action on a table ARN (or, for a Query or Scan with `IndexName`, on the index ARN);
 * each item of a transaction needs its own action (PutItem, UpdateItem, DeleteItem,
 * ConditionCheckItem, GetItem) on its table; a batch needs BatchWriteItem/BatchGetItem on each
 * table. Tables are matched by their name in `settings` (or their local name).
 * ARNs carry `settings.AWS_REGION` (default `us-east-1`) and the local account id.
 *
 * @throws (from the client's calls) DynamoDBServiceException named `AccessDeniedException`, HTTP
 *   status 400, with IAM's message, for the first permission the role lacks; the call is not sent.
 */
export function enforceGrants(
  client: DynamoDBDocumentClient,
  definition: FunctionDefinition,
  settings: Settings,
): void {
  const region = settings.AWS_REGION ?? 'us-east-1';
  const tableArn = (name: string) => `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT_ID}:table/${name}`;
  const granted = new Set(
    definition.tableAccess.flatMap(({ table, actions, index }) => {
      const arn = tableArn(settings[table.envVar] ?? table.localName);
      const resources = index ? [arn, `${arn}/index/${index}`] : [arn];
      return actions.flatMap((action) => resources.map((resource) => `${action} ${resource}`));
    }),
  );
  const role = `petstore-local-${definition.constructId}Role`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const needed = permissions(context.commandName ?? '', args.input as RequestInput, tableArn);
      const denied = needed.find(({ action, resource }) => !granted.has(`${action} ${resource}`));
      if (denied) {
        throw new DynamoDBServiceException({
          name: 'AccessDeniedException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
          message: `User: arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${role}/${localFunctionName(definition)} is not authorized to perform: ${denied.action} on resource: ${denied.resource} because no identity-based policy allows the ${denied.action} action`,
        });
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'localIamEnforcement' },
  );
}

/** The permissions IAM checks for one call of `commandName` (e.g. `QueryCommand`). */
function permissions(
  commandName: string,
  input: RequestInput,
  tableArn: (name: string) => string,
): Permission[] {
  const action = `dynamodb:${commandName.replace(/Command$/, '')}`;
  if (input.TransactItems) {
    return input.TransactItems.flatMap((item) =>
      Object.entries(item).map(([kind, operation]) => ({
        action: TRANSACTION_ITEM_ACTIONS[kind] ?? action,
        resource: tableArn(operation?.TableName ?? ''),
      })),
    );
  }
  if (input.RequestItems) {
    return Object.keys(input.RequestItems).map((name) => ({ action, resource: tableArn(name) }));
  }
  if (input.TableName === undefined) return [{ action, resource: '*' }];
  const arn = tableArn(input.TableName);
  return [{ action, resource: input.IndexName ? `${arn}/index/${input.IndexName}` : arn }];
}

/**
 * Runs `run` so that every DynamoDB client built meanwhile, in its async context, enforces
 * `definition`'s grants with {@link enforceGrants}: the import of a function's module (the
 * functions build their clients at module scope) and each of its invocations (for a client built
 * lazily). The first import of a module in a process decides: import a function only through this.
 *
 * @returns What `run` returns, e.g. the module.
 */
export function withGrants<T>(definition: FunctionDefinition, run: () => Promise<T>): Promise<T> {
  return clientPolicy.run((client, settings) => enforceGrants(client, definition, settings), run);
}
