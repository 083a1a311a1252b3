/**
 * The rollback command: `npm run rollback -- --stage S [--operation ID]` stops the stage's
 * CodeDeploy deployments in progress or, when none runs, moves each operation's alias `live` back
 * to the version before (stage.ts). A commander program; `rollback.ts` is its argv entry.
 */
import { Command, CommanderError, Option } from 'commander';
import { ROUTES, routeOf } from '../../routes.ts';
import { LIVE_ALIAS, STAGES, type StageName, stackName } from '../../stages.ts';
import {
  type AliasMove,
  type DeployedOperation,
  findOperations,
  moveAlias,
  previousVersion,
  type RollbackClients,
  stopDeployment,
  unfinishedDeployments,
} from './stage.ts';

/** The AWS clients and the output, injected so that tests run the command in-process. */
export interface RollbackDependencies extends RollbackClients {
  /** Writes text (without a final line break) to standard output. */
  readonly stdout: (line: string) => void;
  /** Writes text (without a final line break) to standard error. */
  readonly stderr: (line: string) => void;
}

/** Exit status: 0 done (or help), 1 failed, 2 usage error. */
export type ExitCode = 0 | 1 | 2;

/**
 * Runs the rollback command. Each change is one line on stdout; an error is one line on stderr,
 * `rollback: <message>`, a usage error followed by the help.
 *
 * What it does, per stage (or per operation with `--operation`): when a deployment of any of the
 * operations is unfinished, it stops each one with automatic rollback and changes nothing else;
 * otherwise it moves every operation's alias back to its previous version, after checking that
 * each has one (when one has none, nothing is moved).
 *
 * @param args The arguments after `npm run rollback --`.
 * @returns 0 when done, 1 when an AWS call failed or an alias has no earlier version, 2 for a
 *   missing or unknown stage or operation, or another usage error.
 */
export async function runRollbackCommand(
  args: readonly string[],
  dependencies: RollbackDependencies,
): Promise<ExitCode> {
  const program = rollbackProgram(dependencies);
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (!(error instanceof CommanderError)) {
      dependencies.stderr(`rollback: ${(error as Error).message}`);
      return 1;
    }
    // Commander has written its message, or the help that was asked for.
    if (error.exitCode === 0) return 0;
    dependencies.stderr('');
    program.outputHelp({ error: true });
    return 2;
  }
}

/** The commander program, its output sent to the writers and its exits thrown (exitOverride). */
function rollbackProgram(dependencies: RollbackDependencies): Command {
  const { stdout, stderr } = dependencies;
  return new Command('npm run rollback --')
    .description(
      `Rolls a deployed stage's operations back: stops the CodeDeploy deployments in progress (CodeDeploy then moves alias ${LIVE_ALIAS} back and CloudFormation rolls the stack update back), or, when none runs, moves each operation's alias ${LIVE_ALIAS} to the version before the one it serves.`,
    )
    .helpOption('-h, --help', 'Show this help.')
    .addOption(
      new Option('--stage <stage>', 'The deployed stage (its stack petstore-<stage>).')
        .choices(STAGES)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--operation <operationId>', 'Only this operation. Default: all of them.').choices(
        ROUTES.map((route) => route.operationId),
      ),
    )
    .addHelpText(
      'after',
      '\nAWS credentials and region come from the default chain (AWS_PROFILE, AWS_REGION, …).',
    )
    .configureOutput({
      writeOut: (text) => stdout(text.replace(/\n$/, '')),
      writeErr: (text) => stderr(text.replace(/\n$/, '')),
      outputError: (message, write) => write(`rollback: ${message}`),
    })
    .exitOverride()
    .action(async (options: { stage: StageName; operation?: DeployedOperation['operationId'] }) => {
      const routes = options.operation ? [routeOf(options.operation)] : ROUTES;
      const operations = await findOperations(
        dependencies.cloudFormation,
        stackName(options.stage),
        routes,
      );
      if (!(await stopUnfinished(operations, dependencies))) {
        await moveAliasesBack(operations, dependencies);
      }
    });
}

/**
 * Stops every unfinished deployment of the operations, printing one line each.
 *
 * @returns Whether there was one.
 */
async function stopUnfinished(
  operations: readonly DeployedOperation[],
  { codeDeploy, stdout }: RollbackDependencies,
): Promise<boolean> {
  let stopped = false;
  for (const operation of operations) {
    for (const deploymentId of await unfinishedDeployments(codeDeploy, operation)) {
      const status = await stopDeployment(codeDeploy, deploymentId);
      stdout(
        `${operation.operationId}: stopped deployment ${deploymentId} with rollback (${status}); CodeDeploy moves alias ${LIVE_ALIAS} back.`,
      );
      stopped = true;
    }
  }
  return stopped;
}

/**
 * Moves each operation's alias to its previous version, once every one is known to have one.
 *
 * @throws Error from {@link previousVersion} before anything is moved.
 */
async function moveAliasesBack(
  operations: readonly DeployedOperation[],
  { lambda, stdout }: RollbackDependencies,
): Promise<void> {
  const moves: [DeployedOperation, AliasMove][] = [];
  for (const operation of operations)
    moves.push([operation, await previousVersion(lambda, operation)]);
  for (const [operation, move] of moves) {
    await moveAlias(lambda, operation, move);
    stdout(
      `${operation.operationId}: moved alias ${LIVE_ALIAS} of ${operation.functionName} from version ${move.from} to ${move.to}.`,
    );
  }
}
