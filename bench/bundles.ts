/**
 * The functions' bundles as the stack builds them (its `BUNDLING` settings), for the benches that
 * weigh them: `cold-start.ts` (size, cold import) and `bundle-code.ts` (the project's code in each).
 */
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { BUNDLING } from '../infra/constructs/service-function.ts';
import { REPOSITORY_ROOT } from '../infra/repository.ts';
import { AUTHORIZER, ROUTES } from '../infra/routes.ts';

/** Every function of the stack: its construct id and handler file. */
export const FUNCTIONS: readonly { readonly id: string; readonly entry: string }[] = [
  ...ROUTES.map((route) => ({ id: route.constructId, entry: route.entry })),
  { id: AUTHORIZER.constructId, entry: AUTHORIZER.entry },
];

/**
 * Builds `entry` (relative to the repository root) into `outdir/index.mjs` as the stack does.
 * @returns The bundle's path and esbuild's metafile (inputs relative to the repository root).
 */
export async function bundleFunction(
  entry: string,
  outdir: string,
): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outdir, 'index.mjs');
  const { metafile } = await build({
    entryPoints: [join(REPOSITORY_ROOT, entry)],
    absWorkingDir: REPOSITORY_ROOT,
    outfile: file,
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: 'esm',
    mainFields: BUNDLING.mainFields,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent ?? true,
    external: BUNDLING.externalModules,
    banner: { js: BUNDLING.banner ?? '' },
    metafile: true,
    logLevel: 'error',
  });
  return { file, metafile };
}
