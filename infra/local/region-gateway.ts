/**
 * One region's gateway on the two-region local stack: a child process of multi-region-stack.ts,
 * with its region's environment (`AWS_REGION`, `PETSTORE_REGIONS`, its DynamoDB Local's
 * `DYNAMODB_ENDPOINT`, the tables, `PORT`), since the functions read their settings once per
 * process. It serves the
 * replication model's figures, which it asks of its parent over the IPC channel, and exits when
 * that channel closes.
 *
 * Messages: to the parent `{ ready: url }` once it listens, `{ failed: message }` when it cannot,
 * `{ figures: id }` to ask; from the parent `{ id, figures }`.
 */
import { startGateway } from './gateway.ts';
import { MAX_CONCURRENCY_ENV } from './invocation.ts';

// Before the first AWS SDK call: each invocation in its own InvokeStore context (invocation.ts).
process.env[MAX_CONCURRENCY_ENV] ??= '1000';

/** A message of the parent: the figures asked for by `id`. */
interface FiguresAnswer {
  readonly id: number;
  readonly figures: unknown;
}

const asked = new Map<number, (figures: unknown) => void>();
let lastId = 0;

process.on('message', (message: FiguresAnswer) => {
  asked.get(message.id)?.(message.figures);
  asked.delete(message.id);
});
process.once('disconnect', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
// Ctrl-C reaches the whole process group: the parent stops this process itself, in its order.
process.on('SIGINT', () => {});

/** The model's figures, asked of the parent. */
function replicationFigures(): Promise<unknown> {
  lastId += 1;
  const id = lastId;
  return new Promise((answer) => {
    asked.set(id, answer);
    process.send?.({ figures: id });
  });
}

try {
  const gateway = await startGateway({ host: '127.0.0.1', replicationFigures });
  process.send?.({ ready: gateway.url });
} catch (error) {
  process.send?.({ failed: (error as Error).message });
  process.exitCode = 1;
  process.disconnect?.();
}
