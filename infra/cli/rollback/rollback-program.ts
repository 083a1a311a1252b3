/**
 * The rollback command: `npm run rollback -- --stage S [--region R] [--operation ID]` stops the
 * CodeDeploy deployments in progress of the stage in one region (the home region unless `--region`
 * names another) or, when none runs, moves each operation's alias `live` back to the version
 * before (deployed-operations.ts). A commander program; `rollback.ts` is its argv entry.
 */
import { type Command, Option } from 'commander';
import { ROUTES, routeOf } from '../../routes.ts';
import { LIVE_ALIAS, STACK_OUTPUTS, STAGES, type StageName } from '../../stages.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runProgram,
} from '../common/program.ts';
import { cloudFormationOutputs, type RegionStack, stageStacks } from '../common/stage-stacks.ts';
import {
  type AliasMove,
  type DeployedOperation,
  findOperations,
  moveAlias,
  previousVersion,
  type RollbackClients,
  stopDeployment,
  unfinishedDeployments,
} from './deployed-operations.ts';

/** The AWS clients and the output, injected so that tests run the command in-process. */
export interface RollbackDependencies extends CommandOutput {
  /** The AWS clients of `region`. */
  readonly clients: (region: string) => RollbackClients;
  /** The stage's home region, where its home stack is read (the SDK's: `AWS_REGION`). */
  readonly homeRegion: () => Promise<string>;
}

/** How the rollback command reports errors: `rollback: <message>`, a usage error with the help. */
export const ROLLBACK_STYLE: CommandStyle = { errorPrefix: 'rollback: ' };

/**
 * Runs the rollback command. Each change is one line on stdout; an error is one line on stderr,
 * `rollback: <message>`, a usage error followed by the help.
 *
 * What it does, in one region of the stage (its stack found through stage-stacks.ts; or per
 * operation with `--operation`): when a deployment of any of the operations is unfinished, it
 * stops each one with automatic rollback and changes nothing else; otherwise it moves every
 * operation's alias back to its previous version, after checking that each has one (when one has
 * none, nothing is moved). One region at a time, the home region by default: a rollback is a
 * write, and a region that a failed pipeline never reached still serves the version before, which
 * a rollback there would move past. It ends with a line naming the stage's other regions.
 *
 * @param args The arguments after `npm run rollback --`.
 * @returns 0 when done, 1 when an AWS call failed, the region is not the stage's or an alias has
 *   no earlier version, 2 for a missing or unknown stage or operation, or another usage error.
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
    .option(
      '--region <region>',
      "The region of the stage to roll back (its stack petstore-<stage>-<region>). Default: the home region's.",
    )
    .addOption(
      new Option('--operation <operationId>', 'Only this operation. Default: all of them.').choices(
        ROUTES.map((route) => route.operationId),
      ),
    )
    .addHelpText(
      'after',
      "\nAWS credentials and region come from the default chain (AWS_PROFILE, AWS_REGION, …); AWS_REGION is the stage's home region.",
    )
    .action(async (options: RollbackOptions) => {
      const routes = options.operation ? [routeOf(options.operation)] : ROUTES;
      const homeRegion = await dependencies.homeRegion();
      const read = cloudFormationOutputs((region) => dependencies.clients(region).cloudFormation);
      const region = options.region ?? homeRegion;
      // One region given: stageStacks gives its stack alone.
      const [stack] = (await stageStacks(options.stage, { homeRegion, region, read })) as [
        RegionStack,
      ];
      const clients = dependencies.clients(region);
      const operations = await findOperations(clients.cloudFormation, stack.stackName, routes);
      const output = { ...clients, stdout: dependencies.stdout };
      if (!(await stopUnfinished(operations, output))) await moveAliasesBack(operations, output);
      const regions = stack.outputs.get(STACK_OUTPUTS.regions)?.split(',') ?? [];
      const rest = regions.filter((each) => each !== region);
      if (rest.length > 0) {
        dependencies.stdout(
          `Rolled back ${region} only; the stage's other regions (${rest.join(', ')}) take --region.`,
        );
      }
    });
}

/** The rollback command's options, as commander parses them. */
interface RollbackOptions {
  readonly stage: StageName;
  readonly region?: string;
  readonly operation?: DeployedOperation['operationId'];
}

/** The clients of the region rolled back, and where to print. */
type RegionOutput = RollbackClients & Pick<CommandOutput, 'stdout'>;

/**
 * Stops every unfinished deployment of the operations, printing one line each.
 *
 * @returns Whether there was one.
 */
async function stopUnfinished(
  operations: readonly DeployedOperation[],
  { codeDeploy, stdout }: RegionOutput,
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
  { lambda, stdout }: RegionOutput,
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
