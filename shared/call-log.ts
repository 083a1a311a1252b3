/**
 * The time of each DynamoDB call as a log line (Powertools logger), in place of X-Ray subsegments:
 * the functions bundle no tracing SDK (docs/operations.md, "Where to look").
 */

import { isRequestXRaySampled } from '@aws-lambda-powertools/commons/utils/env';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from './logger.ts';

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
 * Logs every call `client` makes once it settles: `command` (e.g. `GetItem`), `table`,
 * `durationMs` (every attempt and the backoff between them, 0.1 ms), `attempts`, and the error's
 * name as `error` when it failed. At INFO in invocations that X-Ray samples, so that each sampled
 * trace has its calls in the function's log (same `xray_trace_id`); at DEBUG otherwise, and always
 * outside Lambda.
 *
 * @param client The document client (it shares its middleware stack with the DynamoDB client).
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
