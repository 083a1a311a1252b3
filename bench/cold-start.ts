/**
 * Bundle size and cold import time of every function, built with esbuild from the stack's own
 * `BUNDLING` settings (one minified ESM file with its source map, the AWS SDK bundled).
 *
 * Cold import: a fresh `node` process per sample imports the bundle and prints how long the import
 * took (module evaluation and, with `--enable-source-maps`, parsing the source map). The median of
 * `SAMPLES` processes is reported, with and without `--enable-source-maps`.
 *
 * Usage: `npx tsx bench/cold-start.ts` (part of `npm run bench`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLING } from '../infra/constructs/service-function.ts';
import { AUTHORIZER, ROUTES } from '../infra/routes.ts';
import { CURSOR_KEY_SECRET_ARN_ENV } from '../shared/pets/cursor.ts';
import { TABLES } from '../shared/tables.ts';
import { percentiles } from './stats.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLES = 21;

/**
 * What a function's module scope needs to load (table names, the cursor key's secret; no AWS call
 * is made on import).
 */
const ENVIRONMENT = {
  ...process.env,
  ...Object.fromEntries(TABLES.map((table) => [table.envVar, table.localName])),
  [CURSOR_KEY_SECRET_ARN_ENV]: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cursor-key',
  AWS_REGION: 'us-east-1',
  POWERTOOLS_METRICS_DISABLED: 'true',
  NODE_OPTIONS: '',
};

const KiB = 1024;

/** Builds `entry` as the stack does; returns the path of its `index.mjs`. */
async function bundle(entry: string, outdir: string): Promise<string> {
  const outfile = join(outdir, 'index.mjs');
  await build({
    entryPoints: [join(REPOSITORY_ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: BUNDLING.mainFields,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent ?? true,
    external: BUNDLING.externalModules,
    banner: { js: BUNDLING.banner ?? '' },
    logLevel: 'error',
  });
  return outfile;
}

/** Milliseconds a fresh process takes to import `file`, with the given node flags. */
function importTime(file: string, flags: readonly string[]): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const { stdout, status, stderr } = spawnSync(
    process.execPath,
    [...flags, '--input-type=module', '-e', script],
    { encoding: 'utf8', env: ENVIRONMENT },
  );
  if (status !== 0) throw new Error(`importing ${file} failed: ${stderr}`);
  return Number(stdout.trim());
}

/**
 * Median cold import of `file` without and with `--enable-source-maps`, the two alternating so
 * that a change in the machine's load weighs on both alike.
 */
function coldImports(file: string): { plain: number; withMaps: number } {
  const plain: number[] = [];
  const withMaps: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    plain.push(importTime(file, []));
    withMaps.push(importTime(file, ['--enable-source-maps']));
  }
  return { plain: percentiles(plain).p50, withMaps: percentiles(withMaps).p50 };
}

const functions = [
  ...ROUTES.map((route) => ({ id: route.constructId, entry: route.entry })),
  { id: AUTHORIZER.constructId, entry: AUTHORIZER.entry },
];
const outdir = mkdtempSync(join(tmpdir(), 'petstore-cold-'));
try {
  console.log(
    `function                 index.mjs     map   import ms  +source maps  (median of ${SAMPLES})`,
  );
  for (const { id, entry } of functions) {
    const file = await bundle(entry, join(outdir, id));
    const { plain, withMaps } = coldImports(file);
    console.log(
      `${id.padEnd(22)} ${(statSync(file).size / KiB).toFixed(1).padStart(7)} KiB ` +
        `${(statSync(`${file}.map`).size / KiB / KiB).toFixed(2)} MiB ` +
        `${plain.toFixed(1).padStart(8)}  ${withMaps.toFixed(1).padStart(8)} (${(withMaps / plain).toFixed(2)}×)`,
    );
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
