/**
 * Every ```console example of the README and docs/, run with bash against a fresh `npm start`
 * per file, in document order; each answer must be the one the document shows, with times,
 * tokens, cursors and ports masked (format: docs/architecture.md, "Examples that cannot drift").
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dynamoDbLocalPids,
  freshStack,
  START_TIMEOUT_MS,
  type Started,
  startedStack,
  stopAll,
} from '../support/local-stack.ts';
import {
  consoleExamples,
  type Example,
  type ExampleCommand,
  MARKDOWN_FILES,
  REPO_ROOT,
  readMarkdown,
} from './markdown.ts';

/** What changes from run to run, and what each is shown as once masked. */
const MASKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>'],
  [/\b\d{4}-\d\d-\d\d\b/g, '<date>'],
  [/\b1\d{9}\b/g, '<unix-seconds>'],
  [/\bt=\d+/g, 't=<seconds>'],
  [/(Retry-After: |retry after )\d+/gi, '$1<seconds>'],
  [/cursor=[\w-]+/g, 'cursor=<cursor>'],
  [/\bpet_(?:local|stg|prod)_\w+…?/g, '<token>'],
  [/\bkey_[0-9a-f]{16}\b/g, '<key-id>'],
  [/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>'],
];

function mask(text: string): string {
  return MASKS.reduce((masked, [pattern, by]) => masked.replace(pattern, by), text);
}

/**
 * The actual output as the document would show it: for an HTTP answer (`curl -si`), its status
 * line, the headers the document lists (in its order; others are transport detail), and the body.
 */
function shown(actual: string, expected: string): string {
  const text = actual.replaceAll('\r\n', '\n').replace(/\n+$/, '');
  if (!/^HTTP\/1\.1 \d{3}/.test(expected)) return text;
  const [head = '', ...body] = text.split('\n\n');
  const [status, ...headers] = head.split('\n');
  const listed = expected
    .split('\n\n')[0]
    ?.split('\n')
    .slice(1)
    .map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
  const kept = (listed ?? []).map(
    (name) =>
      headers.find((line) => line.toLowerCase().startsWith(`${name}:`)) ?? `(no ${name} header)`,
  );
  return [[status, ...kept].join('\n'), ...body].join('\n\n');
}

/** Lines a directive puts before and after its example in the script. */
function around(directive: string | undefined, dynamoPid: number): [string, string] {
  switch (directive) {
    case undefined:
      return ['', ''];
    case 'within one minute':
      // The example sends about 110 requests; start it early in a UTC minute.
      return ['while [ "$(date -u +%-S)" -gt 20 ]; do sleep 1; done', ''];
    case 'DynamoDB Local frozen':
      return [`kill -STOP ${dynamoPid}`, `kill -CONT ${dynamoPid}`];
    default:
      throw new Error(`Unknown example directive: ${directive}`);
  }
}

const SEPARATOR = '\u001e';
const RUN_TIMEOUT_MS = 150_000;
/** The examples run in a scratch directory (files they write land there); npm in the checkout. */
const NPM_IN_CHECKOUT = `npm() { (cd '${REPO_ROOT}' && command npm "$@"); }`;

/** libfaketime's variables, if any: the examples' commands keep the clock of the stack they call. */
const CLOCK_ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => name === 'LD_PRELOAD' || name.startsWith('FAKETIME'),
  ),
);

/**
 * Runs a file's examples in one bash, in document order, and returns each command's output.
 *
 * @param env `BASE` and `API_KEY`, as the documents name them.
 * @returns One output (stdout and stderr) per command, in order.
 */
async function run(
  examples: readonly Example[],
  env: Record<string, string>,
  dynamoPid: number,
): Promise<string[]> {
  const script = examples.flatMap(({ commands, directive }) => {
    const [before, after] = around(directive, dynamoPid);
    return [
      before,
      ...commands.map(({ command }) => `printf '\\n${SEPARATOR}\\n'\n${command}`),
      after,
    ];
  });
  const cwd = mkdtempSync(join(tmpdir(), 'petstore-examples-'));
  try {
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-c', `exec 2>&1\n${NPM_IN_CHECKOUT}\n${script.join('\n')}\nexit 0`],
      {
        cwd,
        env: { PATH: process.env.PATH, ...CLOCK_ENV, ...env },
        encoding: 'utf8',
        timeout: RUN_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return stdout.split(`\n${SEPARATOR}\n`).slice(1);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const documented = MARKDOWN_FILES.map((path) => ({
  path,
  examples: consoleExamples(readMarkdown(path)),
})).filter(({ examples }) => examples.length > 0);

describe.each(documented)('the console examples of $path', ({ path, examples }) => {
  let started: Started;
  let env: Record<string, string>;

  beforeAll(async () => {
    const stack = await freshStack();
    const { started: running, url } = await startedStack(stack);
    started = running;
    const [, keyId = '', token = ''] =
      /^ {2}free +(key_\w+) +(pet_local_\S+)$/m.exec(started.stdout()) ?? [];
    env = {
      BASE: url,
      API_KEY: token,
      KEY_ID: keyId,
      // `npm run keys` finds the stack as a user's shell would.
      HOME: process.env.HOME ?? '',
      DYNAMODB_PORT: String(stack.DYNAMODB_PORT),
      ADMIN_PORT: String(stack.ADMIN_PORT),
      PETSTORE_DIR: stack.dir,
    };
  }, START_TIMEOUT_MS);
  afterAll(stopAll);

  it('answer as the document shows, in document order on a fresh stack', {
    timeout: RUN_TIMEOUT_MS + 10_000,
  }, async () => {
    const commands: ExampleCommand[] = examples.flatMap(({ commands }) => commands);
    const [dynamoPid = 0] = dynamoDbLocalPids(started.dynamoPort);
    const outputs = await run(examples, env, dynamoPid);
    expect(outputs).toHaveLength(commands.length);
    commands.forEach(({ command, expected, line }, index) => {
      expect
        .soft(mask(shown(outputs[index] ?? '', expected)), `${path}:${line}: $ ${command}`)
        .toBe(mask(expected));
    });
  });
});
