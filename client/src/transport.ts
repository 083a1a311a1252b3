/**
 * How a call reaches the API: one request sent attempt after attempt over `fetch`, each with its
 * timeout, retried as retry.ts allows, and each answer read into a result or a `PetstoreError`.
 */
import { HEADERS, type HttpMethod, type OperationId, REQUEST_ID_HEADER } from './api.ts';
import type { CallOptions, PetstoreClientOptions, PetstoreResult } from './calls.ts';
import { PetstoreError } from './errors.ts';
import {
  type DeprecationNotice,
  deprecationNotice,
  rateLimitState,
  retryAfterSeconds,
} from './headers.ts';
import { backoffDelay, CREATE_RETRY_FLOOR_MS, DEFAULT_RETRY, isRetryable } from './retry.ts';

/** One request as every attempt sends it. */
export interface Outgoing {
  readonly operation: OperationId;
  readonly method: HttpMethod;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Sending it again cannot repeat its effect (a GET, or a POST with an Idempotency-Key). */
  readonly idempotent: boolean;
}

/** An answer read whole: status, headers and JSON body (undefined when not JSON). */
interface Answer {
  readonly response: Response;
  readonly body: unknown;
  readonly receivedAt: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isErrorBody(body: unknown): body is { code: PetstoreError['code']; message: string } {
  const candidate = body as { code?: unknown; message?: unknown } | null;
  return typeof candidate?.code === 'string' && typeof candidate.message === 'string';
}

/** The default deprecation hook: one console warning. */
function warnDeprecated({ operation, sunset, successor }: DeprecationNotice): void {
  console.warn(
    `Petstore API: ${operation} is deprecated${sunset ? ` and is removed on ${sunset.toISOString().slice(0, 10)}` : ''}${successor ? `; use ${successor}` : ''}.`,
  );
}

/**
 * Sends the requests of one client. It holds what the client's calls share: the 429 pause, and
 * which operations' deprecation the hook was told of.
 */
export class Transport {
  private readonly fetch: typeof fetch;
  private readonly warned = new Set<string>();
  /** Until when (performance.now() ms) retrying calls hold back: a 429's `Retry-After`. */
  private pausedUntil = 0;

  /**
   * @param options The client's options (key, retries, timeout, hooks, fetch).
   * @param baseUrl The base URL, with a trailing slash.
   */
  constructor(
    private readonly options: PetstoreClientOptions,
    private readonly baseUrl: URL,
  ) {
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * Sends `request` until it succeeds, fails for good, or the retry budget is spent.
   *
   * @throws PetstoreError of the last attempt; the signal's reason when `options.signal` aborts.
   */
  async call<T>(request: Outgoing, options: CallOptions = {}): Promise<PetstoreResult<T>> {
    const retryOption = options.retry ?? this.options.retry;
    const retry =
      retryOption === false
        ? { ...DEFAULT_RETRY, maxAttempts: 1, maxElapsedMs: Number.POSITIVE_INFINITY }
        : { ...DEFAULT_RETRY, ...this.options.retry, ...retryOption };
    const started = performance.now();
    const remaining = () => retry.maxElapsedMs - (performance.now() - started);
    for (let attempt = 1; ; attempt++) {
      const pausedMs = this.pausedUntil - performance.now();
      if (retry.maxAttempts > 1 && pausedMs > 0 && pausedMs < remaining()) {
        await sleep(pausedMs, options.signal);
      }
      const timeoutMs = Math.min(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, remaining());
      const outcome = await this.attempt(request, attempt, timeoutMs, options.signal);
      if (!(outcome instanceof PetstoreError)) return this.result<T>(outcome, attempt);
      const error = outcome;
      const floorMs = request.method === 'POST' ? CREATE_RETRY_FLOOR_MS : 0;
      const delayMs = Math.max(floorMs, backoffDelay(attempt, error.retryAfter, retry));
      if (
        attempt >= retry.maxAttempts ||
        !isRetryable(error, request.idempotent) ||
        delayMs >= remaining()
      ) {
        throw error;
      }
      if (error.code === 'rate_limited' && error.retryAfter !== undefined) {
        this.pausedUntil = Math.max(this.pausedUntil, performance.now() + error.retryAfter * 1000);
      }
      retry.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /**
   * One attempt: the answer when it is a 2xx, else its error.
   *
   * @throws The caller's signal's reason when it aborts.
   */
  private async attempt(
    request: Outgoing,
    attempt: number,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<Answer | PetstoreError> {
    const limitMs = Math.max(1, Math.ceil(timeoutMs));
    const timeout = AbortSignal.timeout(limitMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(request.url, {
        method: request.method,
        headers: {
          Accept: 'application/json',
          Authorization: `Bearer ${this.options.apiKey}`,
          ...request.headers,
        },
        body: request.body,
        signal,
      });
      text = await response.text();
    } catch (cause) {
      callerSignal?.throwIfAborted();
      const timedOut = timeout.aborted;
      return new PetstoreError({
        code: timedOut ? 'timeout' : 'network_error',
        message: timedOut
          ? `No answer within ${limitMs} ms`
          : `The request failed: ${(cause as Error).message}`,
        status: undefined,
        requestId: undefined,
        retryAfter: undefined,
        rateLimit: undefined,
        headers: undefined,
        attempts: attempt,
        cause,
      });
    }
    const receivedAt = Date.now();
    this.noticeDeprecation(request.operation, response.headers);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return { response, body, receivedAt };
    const apiError = isErrorBody(body) ? body : undefined;
    return new PetstoreError({
      code: apiError?.code ?? 'unexpected_response',
      message: apiError?.message ?? `Unexpected answer ${response.status}: ${text.slice(0, 200)}`,
      status: response.status,
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      retryAfter: retryAfterSeconds(response.headers, receivedAt),
      rateLimit: rateLimitState(response.headers, receivedAt),
      headers: response.headers,
      attempts: attempt,
    });
  }

  private result<T>({ response, body, receivedAt }: Answer, attempts: number): PetstoreResult<T> {
    return {
      data: body as T,
      status: response.status,
      rateLimit: rateLimitState(response.headers, receivedAt),
      replayed: response.headers.get(HEADERS.replayed) === 'true',
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      attempts,
      headers: response.headers,
    };
  }

  /** Tells the deprecation hook, once per operation, that an answer carries a deprecation. */
  private noticeDeprecation(operation: string, headers: Headers): void {
    if (this.warned.has(operation)) return;
    const notice = deprecationNotice(headers, operation, this.baseUrl.href);
    if (!notice) return;
    this.warned.add(operation);
    (this.options.onDeprecation ?? warnDeprecated)(notice);
  }
}
