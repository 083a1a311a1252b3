/**
 * CHANGELOG.md keeps Keep a Changelog's shape: `Unreleased` first, then one section per release,
 * newest first, grouped by the format's kinds of change; its newest release is the version that
 * package.json, package-lock.json and the client's package.json carry. Its readers are operators
 * and API clients: it names what changed for them, never the internal work items behind it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, readMarkdown } from './markdown.ts';

/** The subsection headings Keep a Changelog 1.1.0 allows under a release. */
const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

/** A release heading: `## 1.0.0 - 2026-11-26`. */
const RELEASE = /^(\d+)\.(\d+)\.(\d+) - (\d{4}-\d{2}-\d{2})$/;

/** `version` of a package.json-shaped file of the repository. */
function versionOf(path: string): unknown {
  return (JSON.parse(readFileSync(resolve(REPO_ROOT, path), 'utf8')) as { version?: unknown })
    .version;
}

const changelog = readMarkdown('CHANGELOG.md');
const sections = changelog.split(/^## /m).slice(1);
const titles = sections.map((section) => section.split('\n', 1)[0] ?? '');
const releases = titles.slice(1).map((title) => RELEASE.exec(title));

describe('CHANGELOG.md', () => {
  it('starts with Unreleased, then releases named "X.Y.Z - YYYY-MM-DD"', () => {
    expect(titles[0]).toBe('Unreleased');
    expect(releases.length).toBeGreaterThan(0);
    expect(titles.slice(1).filter((title) => !RELEASE.test(title))).toEqual([]);
  });

  it('lists its releases newest first, by version and by date', () => {
    const listed = releases.map((match) => ({
      version: (match?.slice(1, 4) ?? []).map(Number),
      date: match?.[4] ?? '',
    }));
    const byVersion = [...listed].sort((a, b) => {
      const i = a.version.findIndex((part, at) => part !== b.version[at]);
      return i === -1 ? 0 : (b.version[i] ?? 0) - (a.version[i] ?? 0);
    });
    const byDate = [...listed].sort((a, b) => b.date.localeCompare(a.date));

    expect(listed).toEqual(byVersion);
    expect(listed).toEqual(byDate);
  });

  it("groups each section's entries under Keep a Changelog's kinds of change only", () => {
    const subsections = sections.flatMap((section) =>
      [...section.matchAll(/^### (.+)$/gm)].map(([, kind]) => kind),
    );
    expect(subsections.filter((kind) => !KINDS.includes(kind ?? ''))).toEqual([]);
  });

  it('names no internal work item (an issue number its readers cannot look up)', () => {
    const lines = changelog.split('\n').filter((line) => /\bissue [0-9]+/i.test(line));
    expect(lines).toEqual([]);
  });

  it('has as its newest release the version of the packages', () => {
    const newest = titles[1]?.split(' ')[0];
    expect({
      'package.json': versionOf('package.json'),
      'package-lock.json': versionOf('package-lock.json'),
      'client/package.json': versionOf('client/package.json'),
    }).toEqual({
      'package.json': newest,
      'package-lock.json': newest,
      'client/package.json': newest,
    });
  });
});
