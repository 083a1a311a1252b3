/**
 * The delaying proxy as a process of its own (`startDelayingProxyProcess` forks this file with
 * DynamoDB Local's endpoint and the delay in ms as arguments): its holds, timers and forwarding
 * run on the remote side's CPU, not on the bench's event loop. Sends `{ endpoint }` once listening;
 * answers every `'take'` message with `{ calls }`, the calls answered since the last take.
 */
import { startDelayingProxy } from './delaying-proxy.ts';

const [target, delayMs] = process.argv.slice(2);
if (target === undefined || process.send === undefined) {
  throw new Error('Forked by startDelayingProxyProcess with the target endpoint and the delay');
}
const proxy = await startDelayingProxy(target, Number(delayMs));
process.on('message', (message) => {
  if (message !== 'take') return;
  process.send?.({ calls: proxy.calls.splice(0) });
});
// The bench going away, however it ends, ends the proxy.
process.on('disconnect', () => {
  void proxy.close().then(() => process.exit(0));
});
process.send({ endpoint: proxy.endpoint });
