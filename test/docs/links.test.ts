/**
 * Every link of the README, CHANGELOG and docs/ stays inside the repository and resolves: to a
 * file that exists and, with a `#fragment`, to a heading of that file. The only addresses outside
 * are the local stack's own (`http://127.0.0.1:…`). Every backticked repository path names a file
 * or folder that exists.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_FILES, REPO_ROOT, readMarkdown } from './markdown.ts';

/** The markdown text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^(```+)[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
}

/** Link targets: `[text](target)` and `<scheme://…>` autolinks. */
function links(markdown: string): string[] {
  const text = prose(markdown);
  return [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target]) => target ?? ''),
    ...[...text.matchAll(/<([a-z]+:\/\/[^>\s]+)>/g)].map(([, target]) => target ?? ''),
  ];
}

/** The anchors GitHub makes of a file's headings (lower case, punctuation dropped, `-` for spaces). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Backticked repository paths of the prose: `shared/…`, `infra/…`, `test/…` and the like. */
function repositoryPaths(markdown: string): string[] {
  const pattern = /`((?:shared|infra|functions|test|bench|client|docs)\/[^`\s]*)`/g;
  return [...prose(markdown).matchAll(pattern)].map(([, path = '']) => path);
}

/**
 * Whether a path names something of the repository: a `:line` or `#fragment` suffix is dropped, and
 * a pattern (`functions/*.ts`, `functions/<operation>.ts`, `…`) needs its folder to exist.
 */
function pathExists(path: string): boolean {
  const file = path.replace(/[:#].*$/, '');
  const wildcard = file.search(/[*<…]/);
  return existsSync(join(REPO_ROOT, wildcard === -1 ? file : dirname(file.slice(0, wildcard + 1))));
}

const LOCAL_STACK = /^http:\/\/127\.0\.0\.1(?::\d+)?\//;

describe.each(MARKDOWN_FILES)('the links of %s', (path) => {
  const markdown = readMarkdown(path);

  it('stay inside the repository and resolve to a file and heading', () => {
    const broken = links(markdown).filter((target) => {
      if (/^[a-z]+:/.test(target)) return !LOCAL_STACK.test(target);
      const [file = '', fragment] = target.split('#');
      const absolute = file ? resolve(REPO_ROOT, dirname(path), file) : resolve(REPO_ROOT, path);
      if (relative(REPO_ROOT, absolute).startsWith('..') || !existsSync(absolute)) return true;
      if (fragment === undefined || !absolute.endsWith('.md')) return false;
      return !anchors(readMarkdown(relative(REPO_ROOT, absolute))).has(fragment);
    });
    expect(broken).toEqual([]);
  });
});

describe.each(MARKDOWN_FILES)('the repository paths of %s', (path) => {
  it('name files or folders that exist', () => {
    expect(repositoryPaths(readMarkdown(path)).filter((named) => !pathExists(named))).toEqual([]);
  });
});

describe('the link check', () => {
  it('finds a link that leaves the repository, a missing file and a missing heading', () => {
    expect(links('[spec](../shared/petstore-spec.md) <https://example.com/x>')).toEqual([
      '../shared/petstore-spec.md',
      'https://example.com/x',
    ]);
    expect(anchors("# A\n## Decisions on the spec's gaps\n## `npm start`\n## A")).toEqual(
      new Set(['a', 'decisions-on-the-specs-gaps', 'npm-start', 'a-1']),
    );
    expect(existsSync(join(REPO_ROOT, 'docs/nothing.md'))).toBe(false);
  });

  it('finds a backticked path that no longer exists', () => {
    const paths = repositoryPaths(
      'See `shared/rate-limit/limiter.ts`, `functions/*.ts`, `infra/routes.ts:3` and `npm test`.',
    );
    expect(paths).toEqual(['shared/rate-limit/limiter.ts', 'functions/*.ts', 'infra/routes.ts:3']);
    expect(paths.filter((named) => !pathExists(named))).toEqual(['shared/rate-limit/limiter.ts']);
    expect(pathExists('functions/<operation>.ts')).toBe(true);
    expect(pathExists('nothing/*.ts')).toBe(false);
  });
});
