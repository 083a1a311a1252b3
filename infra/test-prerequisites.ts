/**
 * The `pre` script of `npm test`, after the Node.js preflight: the programs the whole suite runs
 * beside Node.js. Each one missing is one line on stderr saying how to install it, then exit 1,
 * before anything else runs. `npm run test:unit` needs none of them.
 */
import { spawnSync } from 'node:child_process';
import { runMain } from './cli/common/program.ts';
import { assertJava } from './local/dynamodb-local.ts';
import { LocalStackError } from './local/local-stack-errors.ts';

/** True when `command --version` runs and exits 0 (a shim of an uninstalled tool exits non-zero). */
function runs(command: string): boolean {
  const result = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/**
 * What `npm test` needs and this machine lacks, found on `PATH` as the tests run them: Java 17
 * (DynamoDB Local), `chromium` (the API reference page), `cfn-lint` (the synthesized templates)
 * and `shellcheck` (the GitHub workflows' `run:` scripts).
 *
 * @returns One line per missing program, naming it and how to install it; empty when none is.
 */
export function missingTestPrerequisites(): string[] {
  const missing: string[] = [];
  try {
    assertJava();
  } catch (error) {
    if (!(error instanceof LocalStackError)) throw error;
    missing.push(`npm test: ${error.message}`);
  }
  if (!runs('chromium')) {
    missing.push(
      'npm test: the API reference page is rendered in Chromium: install it, e.g. apt-get install -y chromium',
    );
  }
  if (!runs('cfn-lint')) {
    missing.push(
      'npm test: the synthesized templates are checked by cfn-lint: install it, e.g. pip install cfn-lint==1.51.0',
    );
  }
  if (!runs('shellcheck')) {
    missing.push(
      "npm test: the workflows' run: scripts are checked by shellcheck: install it, e.g. apt-get install -y shellcheck",
    );
  }
  return missing;
}

await runMain(import.meta.url, { errorPrefix: 'npm test: ' }, async (_args, output) => {
  const missing = missingTestPrerequisites();
  for (const line of missing) output.stderr(line);
  return missing.length > 0 ? 1 : 0;
});
