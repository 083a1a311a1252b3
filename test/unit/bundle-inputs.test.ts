/**
 * The project's files each function's bundle holds: esbuild's metafile inputs of the bundle built
 * as the stack builds it (bench/bundles.ts, whose lines `bench/bundle-code.ts` counts). The regions
 * code goes only where it runs: each operation's rate limiter counts per region, createPet's ids and
 * idempotency records are per region (its pet creator reads the regions for them), listPets's
 * pages settle later with several regions, and the authorizer writes nothing. No function carries
 * the admin functions' or the local stack's settings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction, FUNCTIONS } from '../../bench/bundles.ts';

const outdir = mkdtempSync(join(tmpdir(), 'petstore-bundle-inputs-'));
/** Each function's metafile inputs, by construct id. */
const inputs = new Map<string, Metafile['inputs']>();

beforeAll(async () => {
  for (const { id, entry } of FUNCTIONS) {
    inputs.set(id, (await bundleFunction(entry, join(outdir, id))).metafile.inputs);
  }
}, 60_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The files of function `id`'s bundle that import `file`. */
function importersOf(id: string, file: string): string[] {
  return Object.entries(inputs.get(id) ?? {})
    .filter(([, input]) => input.imports.some((imported) => imported.path === file))
    .map(([importer]) => importer)
    .sort();
}

/** What counts a request per region: every operation's rate limiter. */
const LIMITER = ['shared/dynamodb/counter-writes.ts', 'shared/dynamodb/dynamodb-rate-limiter.ts'];

describe("the functions' bundles", () => {
  it('reach the regions code only from what runs per region', () => {
    expect({
      AuthorizerFunction: importersOf('AuthorizerFunction', 'shared/regions.ts'),
      GetPetFunction: importersOf('GetPetFunction', 'shared/regions.ts'),
      ListPetsFunction: importersOf('ListPetsFunction', 'shared/regions.ts'),
      CreatePetFunction: importersOf('CreatePetFunction', 'shared/regions.ts'),
    }).toEqual({
      AuthorizerFunction: [],
      GetPetFunction: LIMITER,
      ListPetsFunction: [
        ...LIMITER,
        'shared/dynamodb/status-index.ts',
        'shared/pets/page-cache.ts',
      ],
      CreatePetFunction: [
        ...LIMITER,
        'shared/dynamodb/id-blocks.ts',
        'shared/dynamodb/idempotency-items.ts',
        'shared/dynamodb/pet-creator.ts',
      ].sort(),
    });
  });

  it("read every function's settings only, not the admin functions' and the local stack's", () => {
    for (const { id } of FUNCTIONS) {
      const held = Object.keys(inputs.get(id) ?? {});
      expect(held, id).toContain('shared/function-settings.ts');
      expect(held, id).not.toContain('shared/settings.ts');
    }
  });

  it("hold neither the keys' home-region rule nor the operators' every-region names", () => {
    for (const { id } of FUNCTIONS) {
      const held = Object.keys(inputs.get(id) ?? {}).filter((file) =>
        /^shared\/(keys\/home-region|rate-limit\/key-status)\.ts$/.test(file),
      );
      expect(held, id).toEqual([]);
    }
  });
});
