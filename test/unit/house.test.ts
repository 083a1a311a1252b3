/**
 * The house stays as measured: no source file over 350 lines, a README of at most 150,
 * comments at most a fifth of shared/'s non-blank lines, one name per source file (but an entry
 * and its handler), and docs/architecture.md's "Layout" naming every file of shared/ in its
 * folder's entry, and nothing there that is gone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

const MAX_SOURCE_LINES = 350;
const MAX_README_LINES = 150;
const MAX_SHARED_COMMENT_SHARE = 0.2;

/** The folders whose source files each have a name of their own. */
const NAMED_ONCE = ['infra', 'functions', 'shared', 'bench', 'test/support'];

/** An entry's folder, and its handler's: `functions/x.ts` builds on `functions/handlers/x.ts`. */
const HANDLER_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['functions', 'functions/handlers'],
  ['functions/admin', 'functions/admin/handlers'],
  ['functions/portal', 'functions/portal/handlers'],
]);

/** Tracked files matching `patterns` (git pathspecs), relative to the repository's root. */
function tracked(...patterns: string[]): string[] {
  const out = execFileSync('git', ['ls-files', '--', ...patterns], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

function read(path: string): string {
  return readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
}

/** Lines of a file as `wc -l` counts them (a final newline ends the last line). */
function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

/**
 * Comment and non-blank lines of TypeScript source. A non-blank line is a comment when, trimmed,
 * it starts with `//`, `/*` or `*`, or lies inside a `/* … *\/` block.
 */
function commentLines(source: string): { comments: number; nonBlank: number } {
  let comments = 0;
  let nonBlank = 0;
  let inBlock = false;
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    nonBlank += 1;
    if (inBlock) {
      comments += 1;
      if (trimmed.includes('*/')) inBlock = false;
    } else if (trimmed.startsWith('//') || trimmed.startsWith('*')) {
      comments += 1;
    } else if (trimmed.startsWith('/*')) {
      comments += 1;
      inBlock = !trimmed.includes('*/', 2);
    }
  }
  return { comments, nonBlank };
}

/**
 * The shared/ part of docs/architecture.md's "## Layout" block, by folder: '' for the root entry
 * (from `shared/` to its first folder), `pets` for the lines from `pets/` to the next folder. A
 * folder line may list several folders (the features' header); its text goes to each.
 */
function sharedLayoutEntries(architecture: string, folders: ReadonlySet<string>) {
  const layout = architecture.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  const lines = layout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('shared/'));
  const end = lines.findIndex((line, i) => i > start && /^\S/.test(line));
  const entries = new Map<string, string>([['', '']]);
  let current = [''];
  for (const line of lines.slice(start, end)) {
    const named = [...line.matchAll(/(?:^|\s)([\w-]+)\/(?=\s)/g)].map(([, name]) => name ?? '');
    const leading = line.match(/^\s+([\w-]+)\//)?.[1];
    if (leading !== undefined && folders.has(leading)) {
      current = named.filter((name) => folders.has(name));
    }
    for (const folder of current) entries.set(folder, `${entries.get(folder) ?? ''}\n${line}`);
  }
  return entries;
}

/** The `*.ts` names in `text`: bare names (`cursor.ts`) and repository paths (`test/unit/x.ts`). */
function tsNames(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])[\w./-]+\.ts\b/g)].map(([name]) => name);
}

describe('the house', () => {
  it(`has no tracked source file over ${MAX_SOURCE_LINES} lines`, () => {
    const sources = tracked('*.ts', '*.mjs').filter(
      (path) => !/(^|\/)(node_modules|generated|dist)\//.test(path),
    );
    expect(sources.length).toBeGreaterThan(100);
    const over = sources
      .map((path) => ({ path, lines: lineCount(read(path)) }))
      .filter(({ lines }) => lines > MAX_SOURCE_LINES);
    expect(over).toEqual([]);
  });

  it('gives each source file a name of its own, but an entry and its handler', () => {
    const byName = new Map<string, string[]>();
    for (const path of tracked(
      ...NAMED_ONCE.flatMap((folder) => [`${folder}/*.ts`, `${folder}/*.mjs`]),
    )) {
      byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
    }
    const entryAndHandler = ([one, other]: string[]) =>
      [one, other].some((entry) =>
        [one, other].some(
          (handler) => HANDLER_FOLDERS.get(dirname(entry ?? '')) === dirname(handler ?? ''),
        ),
      );
    const shared = [...byName.values()].filter(
      (paths) => paths.length > 1 && !(paths.length === 2 && entryAndHandler(paths)),
    );
    expect(byName.size).toBeGreaterThan(200);
    expect(shared).toEqual([]);
  });

  it(`has a README of at most ${MAX_README_LINES} lines`, () => {
    expect(lineCount(read('README.md'))).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it(`keeps comments at most ${MAX_SHARED_COMMENT_SHARE * 100} % of shared/'s non-blank lines`, () => {
    let comments = 0;
    let nonBlank = 0;
    for (const path of tracked('shared/*.ts')) {
      const counts = commentLines(read(path));
      comments += counts.comments;
      nonBlank += counts.nonBlank;
    }
    expect(nonBlank).toBeGreaterThan(1_000);
    expect(comments / nonBlank).toBeLessThanOrEqual(MAX_SHARED_COMMENT_SHARE);
  });

  describe('docs/architecture.md, "Layout"', () => {
    const files = tracked('shared/*.ts');
    const folderOf = (path: string) => dirname(path).replace(/^shared\/?/, '');
    const folders = new Set(files.map(folderOf).filter(Boolean));
    const entries = sharedLayoutEntries(read('docs/architecture.md'), folders);

    it('has an entry for shared/ and for each of its folders', () => {
      expect(entries.get('')).toMatch(/\.ts\b/);
      expect([...entries.keys()].sort()).toEqual(['', ...folders].sort());
    });

    it("names every file of shared/ in its folder's entry", () => {
      const unnamed = files.filter(
        (path) => !tsNames(entries.get(folderOf(path)) ?? '').includes(basename(path)),
      );
      expect(unnamed).toEqual([]);
    });

    it('names no file of shared/ that is not in the tree', () => {
      const all = new Set(tracked());
      const gone = [...entries].flatMap(([folder, text]) =>
        tsNames(text)
          .map((name) => (name.includes('/') ? name : join('shared', folder, name)))
          .filter((path) => !all.has(path)),
      );
      expect(gone).toEqual([]);
    });
  });
});
