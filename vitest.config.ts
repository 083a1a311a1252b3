import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The folders of test/ whose files mostly wait, on the processes they start (npm start, DynamoDB
 * Local, bash, Chromium) and on the clock; docs/ first, whose examples file is one of the longest.
 */
const WAITING = ['docs', 'integration'];
/**
 * The folders whose files keep a core busy (the stacks' synthesis, cfn-lint, Guard), the slowest
 * first; any other folder after them.
 */
const WORKING = ['infra', 'dynamodb', 'contract'];

/** The folder of test/ that holds `file`, e.g. `integration`. */
function folderOf(file: TestSpecification): string {
  return relative(file.project.config.root, file.moduleId).split('/')[1] ?? '';
}

/** `files` of `folders`, by the folders' order, each folder's as given. */
function inFolders(files: TestSpecification[], folders: readonly string[]): TestSpecification[] {
  return folders.flatMap((folder) => files.filter((file) => folderOf(file) === folder));
}

/**
 * Alternates a file that keeps a core busy with one that mostly waits, so that the two workers
 * seldom wait at once, each kind the slowest folder first, and within a folder as vitest orders
 * them (the last run's durations on this checkout, else the larger file first).
 */
class Interleaved extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waiting = inFolders(sorted, WAITING);
    const working = [
      ...inFolders(sorted, WORKING),
      ...sorted.filter((file) => ![...WAITING, ...WORKING].includes(folderOf(file))),
    ];
    return Array.from({ length: Math.max(waiting.length, working.length) }, (_, at) => [
      working[at],
      waiting[at],
    ])
      .flat()
      .filter((file) => file !== undefined);
  }
}

/**
 * Two projects: `unit` (test/unit/, no Java: in-memory adapters, every DynamoDB call refused) and
 * `dynamodb` (everything else, on one DynamoDB Local for the run; each test file gets its own
 * tables). `npm test` runs both, `npm run test:unit` the first. The files run on as many workers
 * as the machine has cores (vitest's own default is one fewer: on two cores, one file at a time,
 * the other core idle whenever the file waited on a child process or the clock). One more worker
 * was faster still, but left the two-region rehearsals and the 90-request burst of
 * local-gateway-hostile too little CPU for their deadlines on a busy machine.
 */
export default defineConfig({
  test: {
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      // Every DynamoDB Local of the run (its own, a file's, each npm start's) lives for seconds
      // or minutes: C2's compiling cost more CPU than its code saved (docs/measurements.md).
      JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
    },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    maxWorkers: availableParallelism(),
    sequence: { sequencer: Interleaved },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/no-dynamodb.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'dynamodb',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/tables-per-file.ts', 'test/support/guard-once.ts'],
        },
      },
    ],
  },
});
