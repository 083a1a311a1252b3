/** Percentiles and formatting shared by the benchmarks. */
import { performance } from 'node:perf_hooks';

/** p50, p95 and p99 of a set of times, in the times' unit. */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** Nearest-rank percentiles; sorts `times` in place. */
export function percentiles(times: number[]): Percentiles {
  times.sort((x, y) => x - y);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** Milliseconds with two decimals, right-aligned in 7 characters. */
export function formatMs(ms: number): string {
  return ms.toFixed(2).padStart(7);
}

/**
 * Runs `request` `total` times with `concurrency` in flight and times the whole run.
 *
 * @returns Requests per second.
 */
export async function throughput(
  concurrency: number,
  total: number,
  request: () => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await request();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
