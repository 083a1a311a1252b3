import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local for the whole run; each test file gets its own tables.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/tables-per-file.ts'],
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
    },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
