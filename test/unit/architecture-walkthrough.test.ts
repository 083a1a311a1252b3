/**
 * docs/architecture.md's walkthrough of createPet ("createPet with an `Idempotency-Key`, file by
 * file") names exactly the project's files of createPet's bundle, built as the stack builds it
 * (bench/bundles.ts, esbuild's metafile): each in a step, or on its "Also in the bundle" line when
 * a section of its own explains it, and their number as the walkthrough states it. When createPet's
 * path changes, the walkthrough changes with it: the failure lists the files to add or remove.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction } from '../../bench/bundles.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

const ENTRY = 'functions/create-pet.ts';
const HEADING = '### createPet with an `Idempotency-Key`, file by file';
/** Opens the line of the files the steps leave to sections of their own. */
const ALSO_IN_THE_BUNDLE = '**Also in the bundle**';

/** The walkthrough: from its heading to the next heading. */
function walkthrough(): string {
  const architecture = readFileSync(join(REPOSITORY_ROOT, 'docs/architecture.md'), 'utf8');
  const [, after = ''] = architecture.split(`${HEADING}\n`);
  return after.split(/^#{1,3} /m)[0] ?? '';
}

/** The runtime's files `text` names in backticks, e.g. `shared/http/handler.ts`. */
function namedFiles(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/`((?:functions|shared)\/[^`\s]+\.ts)`/g)].map(([, path = '']) => path),
  );
}

const text = walkthrough();
const [steps = '', alsoInTheBundle = ''] = text.split(ALSO_IN_THE_BUNDLE);
const listed = new Set([...namedFiles(steps), ...namedFiles(alsoInTheBundle)]);

const outdir = mkdtempSync(join(tmpdir(), 'petstore-walkthrough-'));
/** The project's files of createPet's bundle, relative to the repository root. */
let bundled: Set<string>;
beforeAll(async () => {
  const { metafile } = await bundleFunction(ENTRY, outdir);
  bundled = new Set(
    Object.keys(metafile.inputs).filter((path) => !/(^|\/)node_modules\//.test(path)),
  );
}, 60_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("docs/architecture.md's walkthrough of createPet", () => {
  it('names every project file of the bundle, and no file the bundle lacks', () => {
    expect(bundled).toContain(ENTRY);
    expect({
      'in the bundle, not named in the walkthrough': [...bundled].filter(
        (path) => !listed.has(path),
      ),
      'named in the walkthrough, not in the bundle': [...listed].filter(
        (path) => !bundled.has(path),
      ),
    }).toEqual({
      'in the bundle, not named in the walkthrough': [],
      'named in the walkthrough, not in the bundle': [],
    });
  });

  it('states how many project files the bundle holds', () => {
    const stated = /bundle, as the stack builds it, holds (\d+) of the project's files/.exec(text);
    expect(stated?.[1]).toBeDefined();
    expect(Number(stated?.[1]), 'the number the walkthrough states').toBe(bundled.size);
  });

  it('leaves files to other sections on its "Also in the bundle" line only, none also a step', () => {
    const leftOut = namedFiles(alsoInTheBundle);
    expect(leftOut.size).toBeGreaterThan(0);
    expect([...namedFiles(steps)].filter((path) => leftOut.has(path))).toEqual([]);
  });
});
