/**
 * IAM on the local stack, enforced from outside the functions as AWS enforces it: each function's
 * role gets its own DynamoDB endpoint on loopback (the `DYNAMODB_ENDPOINT` of its environment),
 * which passes to DynamoDB Local exactly the calls the role is granted on AWS (its `tableAccess` in
 * infra/routes.ts, from which ServiceFunction grants) and answers anything else with DynamoDB's
 * AccessDeniedException. DynamoDB Local enforces no IAM.
 */
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { regionsOf } from '../../shared/regions.ts';
import { readSettings, requiredSetting, type Settings } from '../../shared/settings.ts';
import type { FunctionDefinition } from '../routes.ts';
import { localEventBus } from './event-bus.ts';
import { LOCAL_ACCOUNT_ID } from './events.ts';
import { listenInBackground } from './ports.ts';

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

/** The parts of a request's JSON body that name tables and indexes. */
interface RequestInput {
  TableName?: string;
  IndexName?: string;
  TransactItems?: readonly Record<string, { TableName?: string } | undefined>[];
  RequestItems?: Record<string, unknown>;
}

/**
 * The permissions IAM checks for one call: the action on a table ARN (for a Query or Scan with
 * `IndexName`, on the index ARN); each item of a transaction its own action on its table; a batch
 * its action on each table.
 *
 * @param operation The call's name, from `X-Amz-Target` (e.g. `Query`).
 */
function permissions(
  operation: string,
  input: RequestInput,
  tableArn: (name: string) => string,
): Permission[] {
  const action = `dynamodb:${operation}`;
  if (input.TransactItems) {
    return input.TransactItems.flatMap((item) =>
      Object.entries(item).map(([kind, call]) => ({
        action: TRANSACTION_ITEM_ACTIONS[kind] ?? action,
        resource: tableArn(call?.TableName ?? ''),
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
 * The first permission of a call that `definition`'s role lacks, else undefined. Tables are matched
 * by their name in `settings` (or their local name); ARNs carry `settings.AWS_REGION` (default
 * `us-east-1`) and the local account id.
 */
function denialOf(
  definition: FunctionDefinition,
  settings: Settings,
): (operation: string, input: RequestInput) => Permission | undefined {
  const region = settings.AWS_REGION ?? 'us-east-1';
  const tableArn = (name: string) => `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT_ID}:table/${name}`;
  const granted = new Set(
    definition.tableAccess.flatMap(({ table, actions, index }) => {
      const arn = tableArn(settings[table.envVar] ?? table.localName);
      const resources = index ? [arn, `${arn}/index/${index}`] : [arn];
      return actions.flatMap((action) => resources.map((resource) => `${action} ${resource}`));
    }),
  );
  return (operation, input) =>
    permissions(operation, input, tableArn).find(
      ({ action, resource }) => !granted.has(`${action} ${resource}`),
    );
}

/** Connections to DynamoDB Local, kept open between calls as the functions' own clients keep theirs. */
const upstream = new Agent({ keepAlive: true });

/**
 * Starts `definition`'s endpoint in front of `target`: a call its role may make is passed on
 * byte for byte and DynamoDB's answer passed back; any other call is answered as DynamoDB answers
 * it on AWS, HTTP 400 `AccessDeniedException` with IAM's message, and not passed on. When
 * `target` cannot be reached, the caller's connection is closed, as `target`'s would be.
 *
 * @returns The endpoint's URL on 127.0.0.1. It does not keep the process alive.
 */
async function startEndpoint(
  definition: FunctionDefinition,
  target: string,
  settings: Settings,
): Promise<string> {
  const deniedCall = denialOf(definition, settings);
  const role = `petstore-local-${definition.constructId}Role`;
  const caller = `arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${role}/${localFunctionName(definition)}`;
  const judge = (incoming: IncomingMessage, answer: ServerResponse, body: Buffer) => {
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const denied = deniedCall(operation, parsed(body));
    if (!denied) return forward(incoming, body, answer, target);
    answer.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
    answer.end(
      JSON.stringify({
        __type: 'com.amazon.coral.service#AccessDeniedException',
        Message: `User: ${caller} is not authorized to perform: ${denied.action} on resource: ${denied.resource} because no identity-based policy allows the ${denied.action} action`,
      }),
    );
  };
  const server = createServer({ keepAliveTimeout: 65_000 }, (incoming, answer) => {
    incoming.toArray().then(
      (chunks) => judge(incoming, answer, Buffer.concat(chunks)),
      // The caller went away mid-request: nothing to judge or answer.
      () => incoming.socket.destroy(),
    );
  });
  return listenInBackground(server);
}

/** A request body's JSON object, or `{}` (which names no table) when it is none. */
function parsed(body: Buffer): RequestInput {
  try {
    const input: unknown = JSON.parse(body.toString('utf8'));
    return typeof input === 'object' && input !== null ? input : {};
  } catch {
    return {};
  }
}

/** Passes a granted call on to `target` and its answer back; a failure on either side ends both. */
function forward(incoming: IncomingMessage, body: Buffer, answer: ServerResponse, target: string) {
  const outgoing = request(
    new URL(incoming.url ?? '/', target),
    { method: incoming.method, headers: incoming.headers, agent: upstream },
    (response) => {
      answer.writeHead(response.statusCode ?? 500, response.headers);
      response.on('error', () => answer.destroy()).pipe(answer);
    },
  );
  outgoing.on('error', () => incoming.socket.destroy());
  answer.on('close', () => {
    if (!answer.writableFinished) outgoing.destroy();
  });
  outgoing.end(body);
}

const endpoints = new Map<string, Promise<string>>();

/**
 * The DynamoDB endpoint of `definition`'s role in front of the settings' `DYNAMODB_ENDPOINT`: what
 * the local stack hands a function as its own `DYNAMODB_ENDPOINT`. One per role, grants, table
 * names and target, started at the first call.
 *
 * @throws Error when the settings name no `DYNAMODB_ENDPOINT`.
 */
export function grantedEndpoint(
  definition: FunctionDefinition,
  settings: Settings = readSettings(),
): Promise<string> {
  const target = requiredSetting(settings, 'DYNAMODB_ENDPOINT');
  const id = JSON.stringify([
    definition.constructId,
    definition.tableAccess.map(({ table, actions, index }) => [
      settings[table.envVar] ?? table.localName,
      actions,
      index,
    ]),
    settings.AWS_REGION,
    target,
  ]);
  let endpoint = endpoints.get(id);
  if (!endpoint) {
    endpoint = startEndpoint(definition, target, settings);
    endpoints.set(id, endpoint);
  }
  return endpoint;
}

/**
 * The environment of `definition`'s function, as Lambda gives each function its own: `env` with
 * `DYNAMODB_ENDPOINT` set to the role's {@link grantedEndpoint}, for the entry's
 * `createHandler(env)` (functions/*.ts), so that every DynamoDB call the handler makes passes
 * through its role's grants; outside the home region, the calls it makes `inHomeRegion` go
 * through an endpoint of their own in front of `HOME_DYNAMODB_ENDPOINT`, with the home region's
 * ARNs. A function that `publishesEvents` gets the process's event bus as `EVENTBRIDGE_ENDPOINT`
 * (event-bus.ts), any other none. The process's environment is left as it is.
 *
 * @throws Error when `env` names no `DYNAMODB_ENDPOINT`, or a function of another region that
 *   calls the home region no `HOME_DYNAMODB_ENDPOINT`.
 */
export async function grantedEnvironment(
  definition: FunctionDefinition,
  env: NodeJS.ProcessEnv = process.env,
): Promise<NodeJS.ProcessEnv> {
  const settings = readSettings(env);
  const { names, own } = regionsOf(settings);
  const { EVENTBRIDGE_ENDPOINT: _, HOME_DYNAMODB_ENDPOINT: __, ...rest } = env;
  const calls = (home: boolean) => ({
    ...definition,
    tableAccess: definition.tableAccess.filter((access) => (access.inHomeRegion ?? false) === home),
  });
  const away = own > 0 && calls(true).tableAccess.length > 0;
  const endpoint = await grantedEndpoint(away ? calls(false) : definition, settings);
  const home =
    away &&
    (await grantedEndpoint(calls(true), {
      ...settings,
      AWS_REGION: names[0],
      DYNAMODB_ENDPOINT: requiredSetting(settings, 'HOME_DYNAMODB_ENDPOINT'),
    }));
  const events = definition.publishesEvents && (await localEventBus()).url;
  return {
    ...rest,
    DYNAMODB_ENDPOINT: endpoint,
    ...(home && { HOME_DYNAMODB_ENDPOINT: home }),
    ...(events && { EVENTBRIDGE_ENDPOINT: events }),
  };
}
