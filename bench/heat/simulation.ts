/**
 * Running requests at a target rate in simulated time: request i at `startMs + i / rate`, dealt
 * round-robin to as many function instances as the rate implies, each handling one request at a
 * time (as a Lambda instance does), all on one simulated clock; in real time as fast as DynamoDB
 * Local answers, with a bounded number of requests in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Simulated duration of one request, in seconds: a function instance handles `1 / 0.02` = 50
 * requests/s, so a rate needs `rate × 0.02` instances (200 at 10,000/s). An assumption about
 * DynamoDB's latency on AWS (a few milliseconds per call, two or three calls per request), not a
 * figure measured here.
 */
export const REQUEST_SECONDS = 0.02;

/** The function instances a rate needs: `rate` × {@link REQUEST_SECONDS}, at least one. */
export function instancesFor(rate: number): number {
  return Math.max(1, Math.ceil(rate * REQUEST_SECONDS));
}

/**
 * One clock for every instance: during a request, the request's simulated time; outside any, the
 * latest time a request started at.
 */
export class SimulatedClock {
  private readonly current = new AsyncLocalStorage<number>();

  constructor(private latest: number) {}

  /** Simulated epoch milliseconds (the `now` of containers and pet stores). */
  readonly now = (): number => this.current.getStore() ?? this.latest;

  /** The simulated time of the request running in this async context, if any. */
  readonly requestTime = (): number | undefined => this.current.getStore();

  /** Runs `fn` as a request at `atMs`: every `now()` it reaches answers `atMs`. */
  at<T>(atMs: number, fn: () => Promise<T>): Promise<T> {
    this.latest = Math.max(this.latest, atMs);
    return this.current.run(atMs, fn);
  }
}

/** How a scenario's load is run. */
export interface LoadPlan {
  /** Requests per simulated second. */
  readonly rate: number;
  /** Simulated seconds run, from `startMs` (a whole second). */
  readonly seconds: number;
  readonly startMs: number;
  /**
   * Instances actually run, at most {@link instancesFor}(rate): the others' requests are skipped,
   * so a partition's units are scaled by instances / this (a sample by instance; each run instance
   * sees exactly the requests it would).
   */
  readonly sampledInstances: number;
  /** Requests in flight in real time. */
  readonly concurrency: number;
}

/**
 * Runs `plan`: request i goes to instance `i mod instancesFor(rate)` at `startMs + ⌊i × 1000 /
 * rate⌋` ms, after that instance's previous request has finished.
 * @param newInstance Builds instance `index` (its own container, so its own state).
 * @param request Sends request `i`, the `n`th request run (0, 1, …), to `instance` and answers its
 *   HTTP status; called in order of `i`.
 * @returns How many requests answered each status.
 */
export async function runAtRate<Instance>(
  plan: LoadPlan,
  clock: SimulatedClock,
  newInstance: (index: number) => Instance,
  request: (i: number, n: number) => (instance: Instance) => Promise<number>,
): Promise<Map<number, number>> {
  const count = instancesFor(plan.rate);
  const run = Math.min(count, plan.sampledInstances);
  const instances = Array.from({ length: run }, (_, index) => ({
    instance: newInstance(index),
    idle: Promise.resolve(),
  }));
  const total = Math.round(plan.rate * plan.seconds);
  const statuses = new Map<number, number>();
  let next = 0;
  let sent = 0;
  const take = (): number | undefined => {
    while (next < total && next % count >= run) next += 1;
    return next < total ? next++ : undefined;
  };
  const worker = async () => {
    for (let i = take(); i !== undefined; i = take()) {
      const slot = instances[i % count];
      if (!slot) throw new Error(`no instance for request ${i}`);
      const send = request(i, sent++);
      const atMs = plan.startMs + Math.floor((i * 1000) / plan.rate);
      const turn = slot.idle.then(() => clock.at(atMs, () => send(slot.instance)));
      slot.idle = turn.then(
        () => undefined,
        () => undefined,
      );
      const status = await turn;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: plan.concurrency }, worker));
  return statuses;
}
