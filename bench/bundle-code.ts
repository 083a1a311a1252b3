/**
 * The project's own code in each function's bundle: the files and the lines of code (non-blank,
 * non-comment) of esbuild's metafile inputs outside node_modules, built as the stack builds them.
 * `npx tsx bench/bundle-code.ts` (part of `npm run bench`). Targets: issue 35.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../infra/repository.ts';
import { bundleFunction, FUNCTIONS } from './bundles.ts';

/** Most lines of the project's code a function's bundle may hold, by construct id (issue 35). */
const TARGETS: Readonly<Record<string, number>> = {
  CreatePetFunction: 2_000,
  GetPetFunction: 1_950,
  ListPetsFunction: 1_950,
};

/**
 * Lines of code in a source file: lines that are neither blank nor, after their indentation, start
 * a comment (`//`, `/*`) or continue a block comment (`*`).
 */
function codeLines(text: string): number {
  return text.split('\n').filter((line) => {
    const code = line.trim();
    return code !== '' && !code.startsWith('//') && !code.startsWith('/*') && !code.startsWith('*');
  }).length;
}

const outdir = mkdtempSync(join(tmpdir(), 'petstore-code-'));
try {
  console.log('Project code per function bundle (esbuild metafile inputs outside node_modules):');
  console.log('| function | files | lines of code | target |');
  console.log('| --- | --- | --- | --- |');
  for (const { id, entry } of FUNCTIONS) {
    const { metafile } = await bundleFunction(entry, join(outdir, id));
    const files = Object.keys(metafile.inputs).filter((input) => !input.includes('node_modules/'));
    const lines = files.reduce(
      (sum, file) => sum + codeLines(readFileSync(join(REPOSITORY_ROOT, file), 'utf8')),
      0,
    );
    const target = TARGETS[id];
    const verdict =
      target === undefined
        ? '—'
        : `≤ ${target.toLocaleString('en')}${lines > target ? ' (over)' : ''}`;
    console.log(`| ${id} | ${files.length} | ${lines.toLocaleString('en')} | ${verdict} |`);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
