/**
 * The authorizer's log lines, at the level deployed functions log at (INFO; the other test files
 * run with logging off).
 */
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { authorizerHandler } = await import('../../functions/handlers/authorizer.ts');
const { inMemoryContainer } = await import('../support/in-memory-container.ts');
const handler = authorizerHandler(inMemoryContainer());
const { createAuthorizerEvent, createLambdaContext } = await import('../../infra/local/events.ts');
const { generateToken } = await import('../../shared/keys/token.ts');
const { logger } = await import('../../shared/logger.ts');

describe('authorizer logs', () => {
  it('carry the request id of the invocation that wrote them', async () => {
    const lines: string[] = [];
    // Powertools prints through a Console of its own; its `info` receives each JSON line.
    const { console: output } = logger as unknown as { console: Console };
    vi.spyOn(output, 'info').mockImplementation((line: string) => {
      lines.push(line);
    });

    // One after the other, as one Lambda container runs them.
    for (const requestId of ['req-auth-1', 'req-auth-2']) {
      await handler(
        createAuthorizerEvent({
          method: 'GET',
          resource: '/pets',
          path: '/pets',
          headers: { Authorization: `Bearer ${generateToken()}` },
        }),
        createLambdaContext('petstore-authorizer', requestId),
      ).catch(() => undefined);
    }

    const refusals = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.message === 'Refused API key');
    expect(refusals.map((line) => line.function_request_id)).toEqual(['req-auth-1', 'req-auth-2']);
  });
});
