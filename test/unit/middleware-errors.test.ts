/**
 * httpHandler's error answers: an ApiError as its code, status and headers, anything else as a
 * detail-free 500 logged with the request id, a failing or silent store as 503 with Retry-After,
 * a deprecated operation's headers on every answer (errorHandler, `deprecated`, the deadline), and
 * the count of 5xx answers per function version that rolls a canary back (countServerErrors).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deprecated } from '../../functions/handlers/get-pet.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { deprecationHeaders } from '../../shared/http/deprecation.ts';
import { ApiError } from '../../shared/http/http-errors.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { logger } from '../../shared/logger.ts';
import { SERVER_ERROR_RESPONSES, versionDimensions } from '../../shared/metrics.ts';
import { unlessUnavailable } from '../../shared/store-errors.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { httpHandler } from '../support/in-memory-http-handler.ts';

const context = createLambdaContext('middleware-test', 'req-middleware');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('errorHandler', () => {
  it('answers 500 internal_error without any detail of an unexpected error', async () => {
    const logged = vi.spyOn(logger, 'error');
    const secret = new Error('connect ECONNREFUSED 10.0.0.7:8000 table=petstore-pets');
    const handler = httpHandler(async () => {
      throw secret;
    });

    const response = await invoke(
      handler,
      authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
      context,
    );

    expect(response).toEqual(errorResponse(500, 'internal_error', 'An unexpected error occurred.'));
    expect(response.body).not.toContain('ECONNREFUSED');
    expect(response.body).not.toContain('    at ');
    expect(logged).toHaveBeenCalledWith('Unexpected error', { error: secret });
  });

  it('logs an unexpected error with the request id', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    // The logger middleware resets the level (SILENT in tests) on every invocation: lift it for
    // the error line only.
    const logError = logger.error.bind(logger);
    vi.spyOn(logger, 'error').mockImplementation((...args) => {
      logger.setLogLevel('ERROR');
      try {
        Reflect.apply(logError, logger, args);
      } finally {
        logger.setLogLevel('SILENT');
      }
    });
    const handler = httpHandler(async () => {
      throw new Error('disk on fire');
    });

    await invoke(
      handler,
      authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
      createLambdaContext('middleware-test', 'req-logged-500'),
    );

    const entries = written.map((line) => JSON.parse(line));
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'Unexpected error',
        function_request_id: 'req-logged-500',
        error: expect.objectContaining({ message: 'disk on fire' }),
      }),
    );
  });

  it('answers 500 internal_error when something other than an Error is thrown', async () => {
    vi.spyOn(logger, 'error');
    for (const thrown of ['a string', null, { statusCode: 400, message: 'looks like HTTP' }]) {
      const handler = httpHandler(async () => {
        throw thrown;
      });
      const response = await invoke(
        handler,
        authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
        context,
      );
      expect(response).toEqual(
        errorResponse(500, 'internal_error', 'An unexpected error occurred.'),
      );
    }
  });

  it('answers an ApiError with its code, status, message and headers', async () => {
    const handler = httpHandler(async () => {
      throw new ApiError('method_not_allowed', 'Use GET or POST.', {
        headers: { Allow: 'GET, POST' },
      });
    });

    const response = await invoke(
      handler,
      authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
      context,
    );

    expect(response).toEqual(
      errorResponse(405, 'method_not_allowed', 'Use GET or POST.', { Allow: 'GET, POST' }),
    );
  });
});

describe('deprecated', () => {
  const deprecation = {
    deprecatedAt: new Date('2026-01-01T00:00:00Z'),
    sunset: new Date('2027-01-01T00:00:00Z'),
    successor: '/pets',
  };
  const headers = deprecated(deprecation);

  it("adds the deprecation's headers to a successful response, keeping its own", async () => {
    const handler = httpHandler(
      async () => jsonResponse(201, { ok: true }, { Location: '/v1/x/1' }),
      { headers },
    );

    const response = await invoke(
      handler,
      authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
      context,
    );

    expect(response).toEqual({
      statusCode: 201,
      headers: {
        'Content-Type': 'application/json',
        Location: '/v1/x/1',
        Deprecation: '@1767225600',
        Sunset: 'Fri, 01 Jan 2027 00:00:00 GMT',
        Link: '</v1/pets>; rel="successor-version"',
      },
      body: '{"ok":true}',
    });
  });

  it("adds the deprecation's headers to error responses, expected or not", async () => {
    vi.spyOn(logger, 'error');
    const failures = [new ApiError('pet_not_found', 'No pet has id 1.'), new Error('boom')];
    for (const failure of failures) {
      const handler = httpHandler(
        async () => {
          throw failure;
        },
        { headers },
      );
      const response = await invoke(
        handler,
        authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
        context,
      );
      expect(response.headers).toEqual({
        'Content-Type': 'application/json',
        ...deprecationHeaders(deprecation),
      });
    }
  });
});

describe('dependency failures', () => {
  /** An error as the AWS SDK throws it when the invocation's deadline aborts a call. */
  function abortError(): Error {
    return Object.assign(new Error('Request aborted'), { name: 'AbortError' });
  }

  it('answer 503 service_unavailable with Retry-After, for the store failing or not answering', async () => {
    vi.spyOn(logger, 'warn');
    const failures = [
      abortError(),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('Cannot do operations on a non-existent table'), {
        name: 'ResourceNotFoundException',
      }),
      Object.assign(new Error('Throughput exceeds the current capacity'), {
        name: 'ThrottlingException',
        $fault: 'client',
      }),
    ];
    for (const failure of failures) {
      // As a store adapter fails: its own error, classified by unlessUnavailable.
      const handler = httpHandler(() => unlessUnavailable(() => Promise.reject(failure)));
      const response = await invoke(
        handler,
        authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
        context,
      );
      expect(response, failure.message).toEqual({
        ...errorResponse(
          503,
          'service_unavailable',
          'The store is unavailable or did not answer in time. Retry after 5 seconds.',
        ),
        headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
      });
    }
  });

  it('give the operation a deadline that aborts before the function times out', async () => {
    const handler = httpHandler((_event, _context, { signal }) =>
      unlessUnavailable(
        () =>
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(abortError()))),
      ),
    );
    // 1.05 s left: the deadline keeps back RESPONSE_MARGIN_MS (1 s), so it fires at once.
    const shortContext = { ...context, getRemainingTimeInMillis: () => 1_050 };

    const response = await invoke(
      handler,
      authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }),
      shortContext,
    );

    expect(response.statusCode).toBe(503);
  });
});

describe('countServerErrors', () => {
  /** The EMF documents of SERVER_ERROR_RESPONSES printed while `handler` answers one request. */
  async function serverErrorLines(
    handler: ReturnType<typeof httpHandler>,
  ): Promise<Record<string, unknown>[]> {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_DEV', 'false');
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    // Lambda passes the version the alias `live` resolved to.
    const versionContext = {
      ...createLambdaContext('petstore-GetPetFunction'),
      functionVersion: '7',
    };
    await handler(authorizedEvent({ method: 'GET', resource: '/x', path: '/x' }), versionContext);
    return lines
      .filter((line) => line.includes(`"${SERVER_ERROR_RESPONSES}"`))
      .map((line) => JSON.parse(line));
  }

  afterEach(() => vi.unstubAllEnvs());

  it('counts a 500 answer to a bug once, for the function version that gave it', async () => {
    vi.spyOn(logger, 'error');
    const handler = httpHandler(async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'name')");
    });

    const [emf, ...more] = await serverErrorLines(handler);

    expect(more).toEqual([]);
    expect(emf).toMatchObject({
      ...versionDimensions('petstore-GetPetFunction', '7'),
      service: 'petstore',
      [SERVER_ERROR_RESPONSES]: 1,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'Petstore',
            Metrics: [{ Name: SERVER_ERROR_RESPONSES, Unit: 'Count' }],
          },
        ],
      },
    });
    // One dimension set, exactly the one the rollback alarm watches (test/infra/stack-deployments).
    const aws = emf?._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] } | undefined;
    const [metric] = aws?.CloudWatchMetrics ?? [];
    expect(metric?.Dimensions).toEqual([
      expect.arrayContaining(['service', 'stage', 'functionName', 'functionVersion']),
    ]);
    expect(metric?.Dimensions[0]).toHaveLength(4);
  });

  it('counts a 503 the operation answered itself', async () => {
    const handler = httpHandler(async () =>
      jsonResponse(503, { code: 'service_unavailable', message: 'x', status: 503 }),
    );

    expect(await serverErrorLines(handler)).toHaveLength(1);
  });

  it('counts no 2xx or 4xx answer', async () => {
    const ok = httpHandler(async () => jsonResponse(200, {}));
    const notFound = httpHandler(async () => {
      throw new ApiError('pet_not_found', 'No pet has id 1.');
    });

    expect(await serverErrorLines(ok)).toEqual([]);
    expect(await serverErrorLines(notFound)).toEqual([]);
  });
});
