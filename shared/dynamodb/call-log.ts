/** Each DynamoDB call's time as a log line, in place of X-Ray subsegments (docs/operations.md). */
import { isRequestXRaySampled } from '@aws-lambda-powertools/commons/utils/env';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.ts';

/** `message` of the log line of a DynamoDB call. */
export const CALL_LOG_MESSAGE = 'DynamoDB call';

/** The table(s) a command's input names: `TableName`, or those of a transaction's items. */
function tablesOf(input: object): string | undefined {
  const { TableName, TransactItems } = input as {
    TableName?: string;
    TransactItems?: Record<string, { TableName?: string }>[];
  };
  if (TableName !== undefined || !TransactItems) return TableName;
  const names = TransactItems.flatMap((item) =>
    Object.values(item).map((action) => action.TableName),
  );
  return [...new Set(names)].join(',');
}

/**
 * Logs each call of `client` once it settles: `command`, `table`, `durationMs` (retries included),
 * `attempts`, `error` (its name); at INFO in X-Ray-sampled invocations, else DEBUG.
 */
export function logEachCall(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      const log = (fields: { attempts?: number; error?: string }) =>
        logger[isRequestXRaySampled() ? 'info' : 'debug'](CALL_LOG_MESSAGE, {
          command: context.commandName?.replace(/Command$/, ''),
          table: tablesOf(args.input),
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          ...fields,
        });
      try {
        const result = await next(args);
        log({ attempts: result.output.$metadata.attempts });
        return result;
      } catch (error) {
        const { name, $metadata } = error as { name?: string; $metadata?: { attempts?: number } };
        log({ attempts: $metadata?.attempts, error: name });
        throw error;
      }
    },
    { step: 'initialize', name: 'logEachCall', priority: 'high' },
  );
}
