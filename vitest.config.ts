import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The folders of test/ by how long their files take, the slowest first; any other folder last. */
const SLOWEST_FIRST = ['integration', 'docs', 'infra', 'dynamodb', 'contract'];

/** Where `file`'s folder stands in {@link SLOWEST_FIRST}. */
function rank(file: TestSpecification): number {
  const folder = relative(file.project.config.root, file.moduleId).split('/')[1] ?? '';
  const at = SLOWEST_FIRST.indexOf(folder);
  return at === -1 ? SLOWEST_FIRST.length : at;
}

/**
 * Starts the slowest files first, so that the run ends on short ones: by folder (the local stack's
 * and the docs' files start processes and wait on the clock, the stacks' synthesize), and within
 * a folder as vitest orders them (the last run's durations on this checkout, else the larger file
 * first).
 */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
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
    sequence: { sequencer: SlowestFirst },
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
