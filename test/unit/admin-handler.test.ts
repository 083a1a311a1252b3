/**
 * The admin API's chain (`adminHandler`) and the one error mapping behind it: a bug inside an
 * admin operation, a built-in RangeError included, answers 500 and is logged with its stack; the
 * key rules' refusals and the other domain errors answer their own codes; an event without an IAM
 * principal is refused before anything reads its request. Logged at ERROR, as deployed functions
 * log bugs (the other test files run with logging off).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
});

const { createLambdaContext, createProxyEvent } = await import('../../infra/local/events.ts');
const { InvalidAuditWindowError } = await import('../../shared/audit/audit-errors.ts');
const { adminHandler } = await import('../../shared/http/admin-handler.ts');
const { jsonResponse } = await import('../../shared/http/responses.ts');
const { ApiGatewayStepError, InvalidScopesError, KeyNotFoundError, KeyRevokedError } = await import(
  '../../shared/keys/key-errors.ts'
);
const { logger } = await import('../../shared/logger.ts');
const { InvalidLimitsError } = await import('../../shared/plans.ts');
const { errorResponse } = await import('../support/error-responses.ts');

/** An admin request to `GET /audit` as API Gateway passes it, signed unless `signed` is false. */
function auditEvent(query: Record<string, string> = {}, signed = true) {
  return createProxyEvent({
    method: 'GET',
    resource: '/audit',
    path: '/audit',
    query: new URLSearchParams(query),
    ...(signed && {
      caller: {
        accessKey: 'AKIAEXAMPLE',
        userArn: 'arn:aws:iam::111111111111:user/operator',
        userId: 'AIDAEXAMPLE',
      },
    }),
  });
}

/** The JSON lines the logger prints at ERROR while `work` runs. */
async function errorLines(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  // Powertools prints through a Console of its own; its `error` receives each JSON line.
  const { console: output } = logger as unknown as { console: Console };
  vi.spyOn(output, 'error').mockImplementation((line: string) => {
    lines.push(line);
  });
  await work();
  return lines.map((line) => JSON.parse(line));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('adminHandler', () => {
  it('answers 500 to a RangeError thrown inside an admin operation, and logs it with its stack', async () => {
    const handler = adminHandler(async function listAuditEntries() {
      // A bug: an invalid date has no ISO form.
      return jsonResponse(200, { until: new Date(Number.NaN).toISOString() });
    });
    let response: unknown;

    const [logged, ...more] = await errorLines(async () => {
      response = await handler(auditEvent(), createLambdaContext('admin', 'req-admin-bug'));
    });

    expect(response).toEqual(errorResponse(500, 'internal_error', 'An unexpected error occurred.'));
    expect(more).toEqual([]);
    expect(logged).toMatchObject({
      level: 'ERROR',
      message: 'Unexpected error',
      function_request_id: 'req-admin-bug',
      error: { name: 'RangeError', message: 'Invalid time value' },
    });
    expect(logged?.error).toMatchObject({
      stack: expect.stringMatching(/\n\s+at listAuditEntries /),
    });
  });

  it.each([
    [new InvalidLimitsError('per-minute limit must be a whole number'), 400, 'invalid_body'],
    [new InvalidScopesError('a key needs a scope'), 400, 'invalid_body'],
    [new InvalidAuditWindowError('until must be after since'), 400, 'invalid_parameter'],
    [new KeyNotFoundError('key_0000000000000000'), 404, 'key_not_found'],
    [new KeyRevokedError('key_0000000000000000'), 409, 'key_revoked'],
  ])('answers %s with %i %s, its message as it is', async (error, status, code) => {
    const handler = adminHandler(async () => {
      throw error;
    });

    const response = await handler(auditEvent(), createLambdaContext('admin'));

    expect([response.statusCode, JSON.parse(response.body)]).toEqual([
      status,
      { code, message: error.message, status },
    ]);
  });

  it('answers 503 with Retry-After when API Gateway or the store fails', async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const failures = [
      new ApiGatewayStepError('Moving the API key failed; nothing was changed.'),
      // As DynamoDB throttles a key store's call that no adapter classified.
      Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 400 },
      }),
    ];

    for (const failure of failures) {
      const handler = adminHandler(async () => {
        throw failure;
      });
      const response = await handler(auditEvent(), createLambdaContext('admin'));

      expect([response.statusCode, response.headers?.['Retry-After']], failure.name).toEqual([
        503,
        '5',
      ]);
    }
  });

  it('answers 403 forbidden to an event without an IAM principal, before its query is read', async () => {
    const operation = vi.fn(async () => jsonResponse(200, {}));
    const handler = adminHandler(operation, { queryParameters: ['since'] });

    const response = await handler(
      auditEvent({ unknown: 'x' }, false),
      createLambdaContext('admin'),
    );

    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'forbidden' });
    expect(operation).not.toHaveBeenCalled();
  });
});
