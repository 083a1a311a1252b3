/**
 * `npm run deploy -- staging|production [cdk deploy options]`: deploys one stage's stack with the
 * project's own aws-cdk CLI, telemetry off and notices off. Any further arguments go to
 * `cdk deploy` as they are (e.g. `--require-approval never`).
 *
 * A missing or unknown stage prints one usage line and exits with status 2; otherwise the exit
 * status is the CLI's. Once per account and region, before the first stage, deploy the API
 * Gateway account settings: `npx cdk deploy petstore-account`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isStageName, STAGES } from '../stages.ts';

/** The one line printed when the stage is missing or unknown. */
export const USAGE = `usage: npm run deploy -- ${STAGES.join('|')} [cdk deploy options]`;

/**
 * The aws-cdk CLI arguments that deploy the stage named first in `args`.
 *
 * @param args The command's arguments: a stage, then options for `cdk deploy`.
 * @returns `['deploy', '<stage>/*', '--no-notices', ...options]`, or undefined when the first
 *   argument is not a stage.
 */
export function deployArguments(args: readonly string[]): string[] | undefined {
  const [stage, ...options] = args;
  if (stage === undefined || !isStageName(stage)) return undefined;
  return ['deploy', `${stage}/*`, '--no-notices', ...options];
}

function main(): void {
  const cdkArguments = deployArguments(process.argv.slice(2));
  if (!cdkArguments) {
    console.error(USAGE);
    process.exit(2);
  }
  const cli = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
  const { status } = spawnSync(process.execPath, [cli, ...cdkArguments], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
    stdio: 'inherit',
  });
  process.exit(status ?? 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
