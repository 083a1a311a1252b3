/**
 * Bundle size and cold import time of every function against a floor (`bench/floor.ts`), built
 * with the stack's own `BUNDLING` settings. `npx tsx bench/cold-start.ts`; `BENCH_NODE` names the
 * node binary, `BENCH_COLD_ROUNDS` the rounds (default 21). How it measures: docs/measurements.md.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { functionSecrets } from '../infra/routes.ts';
import { TABLES } from '../shared/dynamodb/tables.ts';
import { bundleFunction, FUNCTIONS } from './bundles.ts';
import { percentiles } from './stats.ts';

const NODE = process.env.BENCH_NODE ?? process.execPath;
const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 21);

/** Most a function may weigh against the floor, bundle size and cold import. */
const TARGETS = { size: 1.4, coldImport: 1.2 } as const;

/**
 * What a function's module scope needs to load (table names, the ARNs of the secrets the route
 * rows name; no AWS call is made on import).
 */
const ENVIRONMENT = {
  ...process.env,
  ...Object.fromEntries(TABLES.map((table) => [table.envVar, table.localName])),
  ...Object.fromEntries(
    functionSecrets().map((secret) => [
      secret.arnSetting,
      `arn:aws:secretsmanager:us-east-1:000000000000:secret:${secret.localFile}`,
    ]),
  ),
  AWS_REGION: 'us-east-1',
  POWERTOOLS_METRICS_DISABLED: 'true',
  NODE_OPTIONS: '',
};

const KiB = 1024;

/** Milliseconds elapsed and of CPU time while a fresh process imports `file` with `flags`. */
function importTime(file: string, flags: readonly string[]): { elapsed: number; cpu: number } {
  const script =
    'const t = performance.now(), c = process.cpuUsage(); ' +
    `await import(${JSON.stringify(pathToFileURL(file).href)}); ` +
    'const { user, system } = process.cpuUsage(c); ' +
    'console.log(performance.now() - t, (user + system) / 1000);';
  const { stdout, status, stderr } = spawnSync(
    NODE,
    [...flags, '--input-type=module', '-e', script],
    { encoding: 'utf8', env: ENVIRONMENT },
  );
  if (status !== 0) throw new Error(`importing ${file} failed: ${stderr}`);
  const [elapsed = Number.NaN, cpu = Number.NaN] = stdout.trim().split(' ').map(Number);
  return { elapsed, cpu };
}

interface Bundle {
  readonly id: string;
  readonly file: string;
  readonly plain: number[];
  readonly cpu: number[];
  readonly withMaps: number[];
}

/** `value / floor` with two decimals, marked when above `target`. */
function ratio(value: number, floor: number, target?: number): string {
  const x = value / floor;
  return `${x.toFixed(2)}${target !== undefined && x > target ? ' (over)' : ''}`;
}

/** Size in KiB and median cold imports in ms of a bundle. */
function summary({ id, file, plain, cpu, withMaps }: Bundle) {
  const median = (times: number[]) => percentiles(times).p50;
  const size = statSync(file).size / KiB;
  return { id, size, plain: median(plain), cpu: median(cpu), withMaps: median(withMaps) };
}

/** The 1-minute load average, one decimal. */
const load = () => (loadavg()[0] ?? 0).toFixed(1);

const outdir = mkdtempSync(join(tmpdir(), 'petstore-cold-'));
try {
  const built = async (id: string, entry: string): Promise<Bundle> => ({
    id,
    file: (await bundleFunction(entry, join(outdir, id))).file,
    plain: [],
    cpu: [],
    withMaps: [],
  });
  const floorBundle = await built('floor', 'bench/floor.ts');
  const bundles = [floorBundle];
  for (const { id, entry } of FUNCTIONS) bundles.push(await built(id, entry));
  const loadBefore = load();
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = round % bundles.length;
    for (const { file, plain, cpu, withMaps } of [
      ...bundles.slice(start),
      ...bundles.slice(0, start),
    ]) {
      const cold = importTime(file, []);
      plain.push(cold.elapsed);
      cpu.push(cold.cpu);
      withMaps.push(importTime(file, ['--enable-source-maps']).elapsed);
    }
  }
  const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `Cold import: Node ${version}, median of ${ROUNDS} processes per bundle and column, interleaved; ` +
      `load average ${loadBefore} before, ${load()} after. ` +
      `Targets: size ≤ ${TARGETS.size}× floor, cold import ≤ ${TARGETS.coldImport}×.`,
  );
  console.log(
    '| bundle | size | × floor | cold import | × floor | its CPU time | × floor | with `--enable-source-maps` | × floor |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const floor = summary(floorBundle);
  for (const row of bundles.map(summary)) {
    console.log(
      `| ${row.id} | ${row.size.toFixed(1)} KiB | ${ratio(row.size, floor.size, TARGETS.size)} ` +
        `| ${row.plain.toFixed(1)} ms | ${ratio(row.plain, floor.plain, TARGETS.coldImport)} ` +
        `| ${row.cpu.toFixed(1)} ms | ${ratio(row.cpu, floor.cpu, TARGETS.coldImport)} ` +
        `| ${row.withMaps.toFixed(1)} ms | ${ratio(row.withMaps, floor.withMaps)} |`,
    );
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
