/**
 * The rollback command: `npm run rollback -- --stage S [--operation ID]` stops the stage's
 * CodeDeploy deployments in progress or, when none runs, moves each operation's alias `live` back
 * to the version before (stage.ts). A commander program; `rollback.ts` is its argv entry.
 */
import { type Command, Option } from 'commander';
import { ROUTES, routeOf } from '../../routes.ts';
import { LIVE_ALIAS, STAGES, type StageName, stackName } from '../../stages.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runProgram,
} from '../program.ts';
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
export interface RollbackDependencies extends RollbackClients, CommandOutput {}

/** How the rollback command reports errors: `rollback: <message>`, a usage error with the help. */
export const ROLLBACK_STYLE: CommandStyle = { errorPrefix: 'rollback: ' };

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
export function runRollbackCommand(
  args: readonly string[],
  dependencies: RollbackDependencies,
): Promise<ExitCode> {
  return runProgram(rollbackProgram(dependencies), args, dependencies, ROLLBACK_STYLE);
}

/** The commander program, its output sent to the dependencies' writers. */
function rollbackProgram(dependencies: RollbackDependencies): Command {
  return newProgram('npm run rollback --', dependencies, ROLLBACK_STYLE)
    .description(
      `Rolls a deployed stage's operations back: stops the CodeDeploy deployments in progress (CodeDeploy then moves alias ${LIVE_ALIAS} back and CloudFormation rolls the stack update back), or, when none runs, moves each operation's alias ${LIVE_ALIAS} to the version before the one it serves.`,
    )
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
