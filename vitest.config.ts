import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (test/unit/, no Java: in-memory adapters, every DynamoDB call refused) and
 * `dynamodb` (everything else, on one DynamoDB Local for the run; each test file gets its own
 * tables). `npm test` runs both, `npm run test:unit` the first.
 */
export default defineConfig({
  test: {
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
    },
    testTimeout: 30_000,
    hookTimeout: 120_000,
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
