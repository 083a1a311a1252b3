/**
 * The developer portal's build: esbuild bundles portal/src/main.ts (with its CSS) into one
 * minified ES module and one stylesheet, each named by its content's hash, and writes the page
 * that loads them. `npm run build:portal` writes them to portal/dist/ (git-ignored), the stack's
 * synthesis to the directory it uploads beside its `config.json`; `npm start` builds them in
 * memory at each start (infra/local/portal-site.ts), so the local portal is never older than its
 * sources.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REPOSITORY_ROOT } from '../infra/repository.ts';

const SOURCE = resolve(REPOSITORY_ROOT, 'portal/src');

/** Where `npm run build:portal` writes the site. */
export const PORTAL_DIST = resolve(REPOSITORY_ROOT, 'portal/dist');

/** One file of the built site. */
export interface PortalFile {
  /** Its path under the site's root, e.g. `index.html` or `assets/main-3KX2.js`. */
  readonly path: string;
  readonly contents: Uint8Array;
}

/**
 * Builds the site: `index.html` and the hashed files under `assets/` it loads. The page carries
 * no inline script or style (the portal's CSP allows none, infra/portal-headers.ts).
 *
 * @returns The files, `index.html` first; nothing is written.
 * @throws Error (esbuild's) when the sources do not build.
 */
export async function buildPortal(): Promise<PortalFile[]> {
  const result = await build({
    entryPoints: [join(SOURCE, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    outdir: 'assets',
    entryNames: '[name]-[hash]',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = result.outputFiles.map((file) => ({
    path: `assets/${basename(file.path)}`,
    contents: file.contents,
  }));
  const named = (extension: string) =>
    assets.find((file) => file.path.endsWith(extension))?.path ?? '';
  const page = readFileSync(join(SOURCE, 'index.html'), 'utf8')
    .replace('{{script}}', `/${named('.js')}`)
    .replace('{{stylesheet}}', `/${named('.css')}`);
  return [{ path: 'index.html', contents: new TextEncoder().encode(page) }, ...assets];
}

/**
 * `npm run build:portal [directory]`: the site afresh in `directory` (default portal/dist/); the
 * stack's synthesis runs it with the asset directory it uploads.
 */
async function writePortal(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
  for (const file of await buildPortal()) {
    const target = join(directory, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  console.log(`Portal built: ${directory}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [directory = PORTAL_DIST] = process.argv.slice(2);
  await writePortal(resolve(directory));
}
