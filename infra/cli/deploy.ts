/**
 * `npm run deploy -- staging|production [--region R | --list-regions] [cdk deploy options]`:
 * deploys one stage's stacks (or one region's, `--region`) with the project's own aws-cdk CLI,
 * telemetry and notices off; further arguments go to `cdk deploy` as they are. Once per account
 * and region, first: `npx cdk deploy petstore-account` (docs/operations.md, "Regions").
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { REPOSITORY_ROOT } from '../repository.ts';
import { isStageName, STACK_OUTPUTS, STAGES, type StageName, stackName } from '../stages.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runMain,
  runProgram,
  UsageError,
} from './common/program.ts';
import { regionStackNames, stackInRegion } from './common/stage-stacks.ts';

/** How the deploy command reports errors: a usage error is the usage line alone. */
const DEPLOY_STYLE: CommandStyle = { errorPrefix: 'deploy: ', briefUsage: true };

/** The command's arguments, as its usage line and help show them. */
const ARGUMENTS = `${STAGES.join('|')} [--region REGION | --list-regions] [cdk deploy options]`;

/** The one line printed when the stage is missing or unknown. */
export const USAGE = `usage: npm run deploy -- ${ARGUMENTS}`;

/** What the command's arguments ask for, before any cloud assembly is read. */
export interface DeployRequest {
  readonly stage: StageName;
  /** `--region R`: only that region's stack (and the stacks it depends on). */
  readonly region?: string;
  /** `--list-regions`: print the stage's regions, home first, and deploy nothing. */
  readonly listRegions: boolean;
  /** `--app DIR`, when given: the cloud assembly to deploy (e.g. the workflow's cdk.out). */
  readonly app?: string;
  /** The arguments for `cdk deploy` after the stacks, `--region` and `--list-regions` removed. */
  readonly cdkOptions: string[];
}

/**
 * Reads the command's arguments: a stage, then `--region R` (or `--region=R`), `--list-regions`
 * and options for `cdk deploy`.
 *
 * @returns The request, or undefined when the first argument is not a stage or `--region` has no
 *   value.
 */
export function deployRequest(args: readonly string[]): DeployRequest | undefined {
  const [stage, ...rest] = args;
  if (stage === undefined || !isStageName(stage)) return undefined;
  let region: string | undefined;
  let listRegions = false;
  const cdkOptions: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const argument = rest[index] as string;
    if (argument === '--list-regions') listRegions = true;
    else if (argument === '--region') region = rest[++index] ?? '';
    else if (argument.startsWith('--region=')) region = argument.slice('--region='.length);
    else cdkOptions.push(argument);
  }
  if (region === '' || region?.startsWith('-')) return undefined;
  const appAt = cdkOptions.indexOf('--app');
  const app = appAt === -1 ? undefined : cdkOptions[appAt + 1];
  return { stage, region, listRegions, app, cdkOptions };
}

/**
 * The aws-cdk CLI arguments that deploy `stacks` (construct paths or patterns).
 *
 * @returns `['deploy', ...stacks, '--no-notices', ...cdkOptions]`
 */
export function deployArguments(
  stacks: readonly string[],
  cdkOptions: readonly string[],
): string[] {
  return ['deploy', ...stacks, '--no-notices', ...cdkOptions];
}

/** A stage's stack of one region in a synthesized cloud assembly. */
export interface AssemblyStack {
  readonly region: string;
  /** Its construct path, which selects it for `cdk deploy`, e.g. `production/Petstore-us-west-2`. */
  readonly path: string;
}

/**
 * The stage's stacks in the cloud assembly at `directory` (`cdk.out`), one per region, home first:
 * the home stack is the one named `petstore-<stage>`; its output `Regions` (a literal in the
 * template) orders the others, each `petstore-<stage>-<region>` in its region. Without that
 * output the stage has the home stack's region alone.
 *
 * @throws Error when the assembly has no home stack of the stage, or lacks a region's stack.
 */
export function assemblyStacks(directory: string, stage: StageName): AssemblyStack[] {
  const stacks = new CloudAssembly(directory).stacksRecursively;
  const home = stacks.find((stack) => stack.stackName === stackName(stage));
  if (!home) throw new Error(`The cloud assembly ${directory} has no stack ${stackName(stage)}.`);
  const regions = home.template.Outputs?.[STACK_OUTPUTS.regions]?.Value;
  return regionStackNames(
    stage,
    typeof regions === 'string' ? regions : undefined,
    home.environment.region,
  ).map(({ region, home: isHome, stackName: name }) => {
    if (isHome) return { region: home.environment.region, path: home.hierarchicalId };
    const stack = stacks.find(
      (each) => each.stackName === name && each.environment.region === region,
    );
    if (!stack)
      throw new Error(`The cloud assembly ${directory} has no stack ${name} in ${region}.`);
    return { region, path: stack.hierarchicalId };
  });
}

/** Runs the project's aws-cdk CLI in the foreground. @throws Error when it fails. */
function cdk(args: readonly string[]): void {
  const cli = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
  const { status } = spawnSync(process.execPath, [cli, ...args], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
    stdio: 'inherit',
  });
  if (status !== 0) throw new Error(`cdk ${args[0]} exited with status ${status ?? 'none'}.`);
}

/**
 * Runs the deploy command: the aws-cdk CLI in the foreground, its output the terminal's. With
 * `--region` or `--list-regions` it reads the cloud assembly of `--app DIR`, or synthesizes one
 * into cdk.out first (which `cdk deploy` would have done anyway).
 *
 * @returns 0 when the CLI succeeded, 1 when it failed or the region is not the stage's, 2 for a
 *   missing or unknown stage or a `--region` without a value.
 */
export function runDeployCommand(
  args: readonly string[],
  output: CommandOutput,
): Promise<ExitCode> {
  const program = newProgram('npm run deploy --', output, DEPLOY_STYLE)
    .usage(ARGUMENTS)
    .description(
      "Deploys one stage's stacks (every region, or one with --region) with the project's aws-cdk CLI (cdk deploy).",
    )
    .argument('<stage>', `The stage: ${STAGES.join(' or ')}.`)
    .argument(
      '[options...]',
      "--region REGION: that region's stack only (and what it depends on); --list-regions: print the stage's regions, home first; anything else goes to cdk deploy, e.g. --require-approval never.",
    )
    .passThroughOptions()
    .action((stage: string, options: string[]) => {
      const request = deployRequest([stage, ...options]);
      if (!request) throw new UsageError(`Unknown stage "${stage}" or --region without a value.`);
      if (request.region === undefined && !request.listRegions) {
        cdk(deployArguments([`${request.stage}/*`], request.cdkOptions));
        return;
      }
      let { app, cdkOptions } = request;
      if (app === undefined) {
        cdk(['synth', '--quiet', '--no-notices']);
        app = 'cdk.out';
        cdkOptions = [...cdkOptions, '--app', app];
      }
      const stacks = assemblyStacks(resolve(REPOSITORY_ROOT, app), request.stage);
      if (request.listRegions) {
        for (const { region } of stacks) output.stdout(region);
        return;
      }
      const stack = stackInRegion(stacks, request.stage, request.region);
      cdk(deployArguments([stack.path], cdkOptions));
    });
  return runProgram(program, args, output, DEPLOY_STYLE);
}

await runMain(import.meta.url, DEPLOY_STYLE, runDeployCommand);
