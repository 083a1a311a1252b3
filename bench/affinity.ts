/**
 * CPU affinity of the latency model (`bench/round-trips.ts`) with `taskset` (util-linux): the
 * "remote side" (DynamoDB Local's JVM and the delaying proxy) on one CPU, the bench (gateway,
 * functions, load) on the others, so that the store's and the network's work does not take the
 * functions' CPU, as on AWS where they run on other machines (docs/measurements.md).
 */
import { spawnSync } from 'node:child_process';

/**
 * The CPUs process `pid` may run on, from `taskset -c -p` (e.g. `0-2,5` → [0, 1, 2, 5]).
 *
 * @returns An empty list when `taskset` is missing or fails.
 */
function allowedCpus(pid: number): number[] {
  const result = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
  const list = result.status === 0 ? /list:\s*([\d,-]+)/.exec(result.stdout)?.[1] : undefined;
  if (!list) return [];
  return list.split(',').flatMap((range) => {
    const [first, last = first] = range.split('-').map(Number) as [number, number?];
    return Array.from({ length: (last as number) - first + 1 }, (_, i) => first + i);
  });
}

/**
 * Pins every thread of each of `remotePids` to the first CPU this process may run on, and every
 * thread of this process to the others (`taskset -a -p`; threads started later inherit it).
 *
 * @returns What was pinned where, for the bench's header, or why nothing was (fewer than two
 *   CPUs, no `taskset`).
 * @throws Error when `taskset` refuses a pid.
 */
export function pinRemoteSide(remotePids: readonly number[]): string {
  const cpus = allowedCpus(process.pid);
  if (cpus.length < 2) {
    return `not pinned (${cpus.length === 0 ? 'no taskset' : 'one CPU'}): the remote side shares the bench's CPU`;
  }
  const [remote, ...local] = cpus as [number, ...number[]];
  const pin = (list: string, pid: number) => {
    const result = spawnSync('taskset', ['-a', '-c', '-p', list, String(pid)], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`taskset -p ${list} ${pid}: ${result.stderr.trim()}`);
  };
  for (const pid of remotePids) pin(String(remote), pid);
  pin(local.join(','), process.pid);
  return `remote side (DynamoDB Local's JVM, the proxy) pinned to CPU ${remote}, the bench (gateway, functions, load) to CPU ${local.join(',')}`;
}
