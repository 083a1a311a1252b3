/**
 * The log line of each DynamoDB call of a container's client (shared/dynamodb/call-log.ts), against
 * DynamoDB Local, at the level deployed functions log at (INFO).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { GetCommand, PutCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
const { CALL_LOG_MESSAGE } = await import('../../shared/dynamodb/call-log.ts');
const { createContainer } = await import('../../shared/dynamodb/dynamodb-container.ts');
const { logger } = await import('../../shared/logger.ts');
const { requiredSetting } = await import('../../shared/settings.ts');

const { client, settings } = createContainer();
const pets = requiredSetting(settings, 'PETS_TABLE_NAME');
const idempotency = requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME');
const TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047';

afterAll(() => client.destroy());
afterEach(() => {
  delete process.env._X_AMZN_TRACE_ID;
});

/** The call lines the logger prints while `run` runs. */
async function callLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  // Powertools prints through a Console of its own; its `info` receives each INFO line.
  const { console: output } = logger as unknown as { console: Console };
  const spy = vi.spyOn(output, 'info').mockImplementation((line: string) => {
    lines.push(line);
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines.map((line) => JSON.parse(line)).filter((line) => line.message === CALL_LOG_MESSAGE);
}

describe('the log line of each DynamoDB call', () => {
  it('gives command, table, duration and attempts in an invocation X-Ray samples', async () => {
    process.env._X_AMZN_TRACE_ID = `${TRACE};Sampled=1`;
    const lines = await callLines(async () => {
      await client.send(new PutCommand({ TableName: pets, Item: { id: 9_000_001, name: 'Log' } }));
      await client.send(new GetCommand({ TableName: pets, Key: { id: 9_000_001 } }));
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: pets, Item: { id: 9_000_002 } } },
            { Put: { TableName: idempotency, Item: { id: 'call-log' } } },
          ],
        }),
      );
    });

    expect(lines).toEqual([
      expect.objectContaining({ command: 'PutItem', table: pets, attempts: 1 }),
      expect.objectContaining({ command: 'GetItem', table: pets, attempts: 1 }),
      expect.objectContaining({
        command: 'TransactWriteItems',
        table: `${pets},${idempotency}`,
        attempts: 1,
      }),
    ]);
    for (const line of lines) {
      expect(line.durationMs).toBeGreaterThan(0);
      expect(line.xray_trace_id).toBe('1-5759e988-bd862e3fe1be46a994272793');
    }
  });

  it('names the error of a failed call', async () => {
    process.env._X_AMZN_TRACE_ID = `${TRACE};Sampled=1`;
    let failure: { $metadata?: { attempts?: number } } | undefined;
    const lines = await callLines(() =>
      client
        .send(
          new PutCommand({
            TableName: pets,
            Item: { id: 9_000_001 },
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        )
        .catch((error: unknown) => {
          failure = error as typeof failure;
        }),
    );

    // As many attempts as the SDK made (1; more when it corrects a skewed clock, as under faketime).
    expect(failure?.$metadata?.attempts).toBeGreaterThanOrEqual(1);
    expect(lines).toEqual([
      expect.objectContaining({
        command: 'PutItem',
        table: pets,
        attempts: failure?.$metadata?.attempts,
        error: 'ConditionalCheckFailedException',
      }),
    ]);
  });

  it('stays at DEBUG in an invocation X-Ray does not sample, and outside Lambda', async () => {
    for (const trace of [`${TRACE};Sampled=0`, undefined]) {
      if (trace) process.env._X_AMZN_TRACE_ID = trace;
      else delete process.env._X_AMZN_TRACE_ID;
      const lines = await callLines(() =>
        client.send(new GetCommand({ TableName: pets, Key: { id: 9_000_001 } })),
      );
      expect(lines).toEqual([]);
    }
  });
});
