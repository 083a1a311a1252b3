/**
 * The project's markdown (README.md, CHANGELOG.md, docs/*.md, client/README.md) as the docs tests
 * read it: the files, their links, their `console` examples and their TypeScript examples (format:
 * docs/architecture.md, "Examples that cannot drift").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository's root directory. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Paths of the project's markdown files, relative to the repository root. */
export const MARKDOWN_FILES: readonly string[] = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(resolve(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
  'client/README.md',
];

/** One `$ …` command of an example and the output the document shows for it. */
export interface ExampleCommand {
  /** The command, continuation lines included, without the `$ ` prompt. */
  readonly command: string;
  /** The output shown below it, trailing blank lines removed. */
  readonly expected: string;
  /** 1-based line of the command in its file. */
  readonly line: number;
}

/** A ```console block: its commands and the directive of the HTML comment just above it. */
export interface Example {
  readonly commands: readonly ExampleCommand[];
  /** `<!-- example: within one minute -->` → `within one minute`. */
  readonly directive?: string;
}

/** The text of a markdown file of the repository. */
export function readMarkdown(path: string): string {
  return readFileSync(resolve(REPO_ROOT, path), 'utf8');
}

/**
 * The ```console examples of a markdown text, in document order. A command starts with `$ `;
 * the lines after it that start with white space, or follow a line ending in `\`, continue it;
 * the lines after those, up to the next command or the fence, are its output.
 */
export function consoleExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```console') continue;
    const directive = /^<!-- example: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    const commands: ExampleCommand[] = [];
    let current: { command: string[]; output: string[]; line: number } | undefined;
    const flush = () => {
      if (!current) return;
      const expected = current.output.join('\n').replace(/\n+$/, '');
      commands.push({ command: current.command.join('\n'), expected, line: current.line });
    };
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      const line = lines[i] ?? '';
      if (line.startsWith('$ ')) {
        flush();
        current = { command: [line.slice(2)], output: [], line: i + 1 };
      } else if (
        current &&
        current.output.length === 0 &&
        (/^\s/.test(line) || current.command.at(-1)?.endsWith('\\'))
      ) {
        current.command.push(line);
      } else {
        current?.output.push(line);
      }
    }
    flush();
    examples.push({ commands, directive });
  }
  return examples;
}

/** A ```ts block, and what it prints when the document shows it. */
export interface TypeScriptExample {
  readonly code: string;
  /** The ```text block that comes next, when the next block is one; trailing blank lines removed. */
  readonly prints?: string;
  /** 1-based line of the block's opening fence in its file. */
  readonly line: number;
}

/** The ```ts examples of a markdown text, in document order. */
export function typescriptExamples(markdown: string): TypeScriptExample[] {
  const blocks = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1],
    body: match[2] ?? '',
    line: markdown.slice(0, match.index).split('\n').length,
  }));
  return blocks.flatMap(({ language, body, line }, index) => {
    if (language !== 'ts') return [];
    const next = blocks[index + 1];
    const prints = next?.language === 'text' ? next.body.replace(/\n+$/, '') : undefined;
    return [{ code: body, prints, line }];
  });
}
