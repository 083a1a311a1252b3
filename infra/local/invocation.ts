/**
 * Invocation of the functions by the local gateway: each handler imported at its first call in its
 * own environment, whose DynamoDB endpoint holds it to its IAM grants (iam.ts), each call in its own Lambda `InvokeStore` context
 * (docs/local-stack.md), its result checked as API Gateway checks it (lambda-results.ts).
 */

import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { logger } from '../../shared/logger.ts';
import type { GatewayResponseType } from '../gateway-responses.ts';
import { REPOSITORY_ROOT } from '../repository.ts';
import { AUTHORIZER, type FunctionDefinition } from '../routes.ts';
import {
  createAuthorizerEvent,
  createLambdaContext,
  createProxyEvent,
  type ProxyRequest,
} from './events.ts';
import { grantedEnvironment, localFunctionName } from './iam.ts';
import {
  type AuthorizerResult,
  AuthorizerResultSchema,
  type ProxyResult,
  ProxyResultSchema,
} from './lambda-results.ts';

/** API Gateway's integration timeout for REST APIs: 29 s. */
export const INTEGRATION_TIMEOUT_MS = 29_000;

/**
 * Declares invocations concurrent to the functions' Powertools utilities (as Lambda Managed
 * Instances do), which then keep their per-invocation state in the Lambda `InvokeStore`. `npm
 * start` sets it before anything else: the first AWS SDK call of the process creates the
 * process's one InvokeStore, concurrent only if this is set by then. Not set here, so that it
 * does not leak into processes that the importer spawns.
 */
export const MAX_CONCURRENCY_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

/**
 * What the gateway makes of an invocation: the function's checked result, or the gateway response
 * that answers instead.
 */
export type InvocationOutcome<Result> =
  | { readonly result: Result }
  | { readonly refusal: GatewayResponseType };

/** The authorizer's verdict on a request. */
export type AuthorizerOutcome = InvocationOutcome<AuthorizerResult>;

/** A Lambda function's handler, as the gateway calls it. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * Handlers that answer for operations (of the public or the admin API) instead of their routes'
 * entries, by operation id.
 */
export type OperationHandlers = Readonly<Partial<Record<string, LambdaHandler>>>;

/** A route of the public or the admin API: its operation's name and its function. */
export type InvokedRoute = FunctionDefinition & { readonly operationId: string };

/** The functions of the stack, invoked in this process. */
export class LambdaInvoker {
  /**
   * An invoker on the process's InvokeStore. Create it before any function is imported:
   * Powertools refuses to log without the store once concurrency is declared.
   */
  static async create(handlers: OperationHandlers = {}): Promise<LambdaInvoker> {
    return new LambdaInvoker(await concurrentInvokeStore(), handlers);
  }

  private constructor(
    private readonly store: InvokeStoreBase,
    private readonly handlers: OperationHandlers,
  ) {}

  /**
   * Invokes the REQUEST authorizer (`AUTHORIZER` of infra/routes.ts) for a request, headers only.
   *
   * @returns Its result when valid; else UNAUTHORIZED when it threw `Unauthorized`,
   *   AUTHORIZER_FAILURE when it threw anything else, AUTHORIZER_CONFIGURATION_ERROR when its
   *   result is malformed.
   */
  async invokeAuthorizer(request: ProxyRequest): Promise<AuthorizerOutcome> {
    let output: unknown;
    try {
      output = await this.invoke(AUTHORIZER, createAuthorizerEvent(request), request);
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') {
        return { refusal: 'UNAUTHORIZED' };
      }
      logger.error('Authorizer failed', { requestId: request.requestId, error });
      return { refusal: 'AUTHORIZER_FAILURE' };
    }
    const parsed = v.safeParse(AuthorizerResultSchema, output);
    if (parsed.success) return { result: parsed.output };
    logger.error('Malformed authorizer result', { requestId: request.requestId, output });
    return { refusal: 'AUTHORIZER_CONFIGURATION_ERROR' };
  }

  /**
   * Invokes an operation's function (of the public or the admin API) with the request's proxy
   * event (a Lambda proxy integration).
   *
   * @param timeoutMs The integration timeout, in milliseconds: past it the gateway answers and
   *   the function runs on unwatched.
   * @returns Its result when valid; else INTEGRATION_TIMEOUT when it has not answered within
   *   `timeoutMs`, INTEGRATION_FAILURE when it threw or its result is malformed.
   */
  async invokeOperation(
    route: InvokedRoute,
    request: ProxyRequest,
    timeoutMs: number,
  ): Promise<InvocationOutcome<ProxyResult>> {
    const result = await withTimeout(this.proxyResult(route, request), timeoutMs);
    if (result === TIMED_OUT) return { refusal: 'INTEGRATION_TIMEOUT' };
    return result ? { result } : { refusal: 'INTEGRATION_FAILURE' };
  }

  /** The operation's result, or `undefined` when its handler threw or answered malformed output. */
  private async proxyResult(
    route: InvokedRoute,
    request: ProxyRequest,
  ): Promise<ProxyResult | undefined> {
    try {
      const output = await this.invoke(
        route,
        createProxyEvent(request),
        request,
        this.handlers[route.operationId],
      );
      const parsed = v.safeParse(ProxyResultSchema, output);
      if (parsed.success) return parsed.output;
      logger.error('Malformed Lambda proxy response', { requestId: request.requestId, output });
    } catch (error) {
      logger.error('Lambda function failed', { requestId: request.requestId, error });
    }
    return undefined;
  }

  /**
   * Runs one invocation of a function (`own`, else its entry's handler) in its own InvokeStore
   * context, with a Lambda context whose request id is the request's.
   *
   * @throws What the handler throws, or the error of importing it.
   */
  private async invoke(
    fn: FunctionDefinition,
    event: unknown,
    request: ProxyRequest,
    own?: LambdaHandler,
  ): Promise<unknown> {
    const handler = own ?? (await loadHandler(fn));
    const context = createLambdaContext(
      localFunctionName(fn),
      request.requestId,
      fn.timeoutSeconds,
    );
    return this.store.run(
      { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId },
      () => handler(event, context),
    );
  }
}

const handlers = new Map<string, Promise<LambdaHandler>>();

/**
 * A function's handler, built once by its entry's `createHandler` in its own environment
 * (`grantedEnvironment`, iam.ts), whose DynamoDB endpoint allows the function's calls as its IAM
 * role does.
 */
function loadHandler(fn: FunctionDefinition): Promise<LambdaHandler> {
  let handler = handlers.get(fn.entry);
  if (!handler) {
    const url = pathToFileURL(resolve(REPOSITORY_ROOT, fn.entry)).href;
    handler = Promise.all([
      import(url) as Promise<{ createHandler: (env: NodeJS.ProcessEnv) => LambdaHandler }>,
      grantedEnvironment(fn),
    ]).then(([entry, env]) => entry.createHandler(env));
    handlers.set(fn.entry, handler);
  }
  return handler;
}

/**
 * The process's InvokeStore, checked to keep one context per invocation across awaits.
 *
 * Logs a warning when an AWS SDK call created a sequential one before this module was loaded.
 */
async function concurrentInvokeStore(): Promise<InvokeStoreBase> {
  const store = await InvokeStore.getInstanceAsync(true);
  const probe = Symbol('probe');
  const seen = await Promise.all(
    [1, 2].map((n) =>
      store.run({ [probe]: n }, async () => {
        await Promise.resolve();
        return store.get(probe);
      }),
    ),
  );
  if (seen[0] !== 1) {
    // An in-process gateway after earlier SDK calls (tests): it works, its log lines may mix ids.
    logger.warn(
      `The Lambda InvokeStore of this process is sequential: concurrent invocations may log each other's request ids. Set ${MAX_CONCURRENCY_ENV} before the first AWS SDK call.`,
    );
  }
  return store;
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or {@link TIMED_OUT} when it has not settled within `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, TIMED_OUT, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}
