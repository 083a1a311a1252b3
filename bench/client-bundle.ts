/**
 * `npm run bench` (part): size of the official client (client/) as a browser app ships it, raw and
 * gzipped, beside openapi-fetch alone (docs/measurements.md).
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const KiB = 1024;

/** Minified and gzipped bytes of `contents` bundled for the browser. */
async function sizes(contents: string, external: string[] = []): Promise<[number, number]> {
  const { outputFiles } = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external,
    write: false,
    logLevel: 'error',
  });
  const code = outputFiles[0]?.contents ?? new Uint8Array();
  return [code.byteLength, gzipSync(code, { level: 9 }).byteLength];
}

const rows: [string, [number, number]][] = [
  ['@petstore/client, all of it', await sizes("export * from './client/src/index.ts';")],
  [
    '@petstore/client without structured-headers',
    await sizes("export * from './client/src/index.ts';", ['structured-headers']),
  ],
  ['openapi-fetch alone (for comparison)', await sizes("export { default } from 'openapi-fetch';")],
];
console.log('| bundle | minified | gzip |\n| --- | --- | --- |');
for (const [name, [minified, gzipped]] of rows) {
  console.log(
    `| ${name} | ${(minified / KiB).toFixed(1)} KiB | ${(gzipped / KiB).toFixed(1)} KiB |`,
  );
}
