/**
 * `npm run deploy -- staging|production [cdk deploy options]`: deploys one stage's stack with the
 * project's own aws-cdk CLI, telemetry and notices off; further arguments go to `cdk deploy` as
 * they are. Once per account and region, first: `npx cdk deploy petstore-account`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { REPOSITORY_ROOT } from '../repository.ts';
import { isStageName, STAGES } from '../stages.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runMain,
  runProgram,
  UsageError,
} from './program.ts';

/** How the deploy command reports errors: a usage error is the usage line alone. */
const DEPLOY_STYLE: CommandStyle = { errorPrefix: 'deploy: ', briefUsage: true };

/** The command's arguments, as its usage line and help show them. */
const ARGUMENTS = `${STAGES.join('|')} [cdk deploy options]`;

/** The one line printed when the stage is missing or unknown. */
export const USAGE = `usage: npm run deploy -- ${ARGUMENTS}`;

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

/**
 * Runs the deploy command: the aws-cdk CLI in the foreground, its output the terminal's.
 *
 * @returns 0 when the CLI succeeded, 1 when it failed, 2 for a missing or unknown stage.
 */
export function runDeployCommand(
  args: readonly string[],
  output: CommandOutput,
): Promise<ExitCode> {
  const program = newProgram('npm run deploy --', output, DEPLOY_STYLE)
    .usage(ARGUMENTS)
    .description("Deploys one stage's stack with the project's aws-cdk CLI (cdk deploy).")
    .argument('<stage>', `The stage: ${STAGES.join(' or ')}.`)
    .argument('[cdk-options...]', 'Passed on to cdk deploy, e.g. --require-approval never.')
    .passThroughOptions()
    .action((stage: string, options: string[]) => {
      const cdkArguments = deployArguments([stage, ...options]);
      if (!cdkArguments) throw new UsageError(`Unknown stage "${stage}".`);
      const cli = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
      const { status } = spawnSync(process.execPath, [cli, ...cdkArguments], {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
        stdio: 'inherit',
      });
      if (status !== 0) throw new Error(`cdk deploy exited with status ${status ?? 'none'}.`);
    });
  return runProgram(program, args, output, DEPLOY_STYLE);
}

await runMain(import.meta.url, DEPLOY_STYLE, runDeployCommand);
