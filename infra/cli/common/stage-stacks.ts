/**
 * How the commands (smoke, rollback, keys, restore) find a deployed stage's stacks, one per
 * region: the home stack (`petstore-<stage>`, in the home region) names the stage's regions in
 * its output `Regions`; every other region R has `petstore-<stage>-<R>` in R
 * (docs/operations.md, "Regions").
 */
import { readFile } from 'node:fs/promises';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { regionalStackName, STACK_OUTPUTS, type StageName, stackName } from '../../stages.ts';
import { stackOutputs } from './stack-outputs.ts';

/** A stage's stack in one of its regions, as deployed. */
export interface RegionStack {
  /** The AWS region, e.g. `us-west-2`. */
  readonly region: string;
  /** Whether it is the stage's home region (the first of its regions). */
  readonly home: boolean;
  /** The CloudFormation stack name: `petstore-<stage>` at home, else `petstore-<stage>-<region>`. */
  readonly stackName: string;
  /** The stack's outputs, by output name (`STACK_OUTPUTS`). */
  readonly outputs: ReadonlyMap<string, string>;
}

/**
 * The stage's stacks, one per region, as its home stack's output `Regions` lists them (absent:
 * the home region alone), home first: `stackName(stage)` at home, `regionalStackName(stage, R)`
 * in each other region R. How the deploy command finds them in a cloud assembly and the other
 * commands on CloudFormation.
 *
 * @param regions The home stack's output `Regions` (comma-separated), when it has one.
 */
export function regionStackNames(
  stage: StageName,
  regions: string | undefined,
  homeRegion: string,
): Omit<RegionStack, 'outputs'>[] {
  return (regions?.split(',') ?? [homeRegion]).map((region, index) => ({
    region,
    home: index === 0,
    stackName: index === 0 ? stackName(stage) : regionalStackName(stage, region),
  }));
}

/**
 * The stack of `region` among a stage's `stacks` (home first), or the home stack when `region` is
 * undefined.
 *
 * @throws Error naming the stage's regions when `region` is not one of them.
 */
export function stackInRegion<Stack extends { readonly region: string }>(
  stacks: readonly Stack[],
  stage: StageName,
  region: string | undefined,
): Stack {
  const stack = region === undefined ? stacks[0] : stacks.find((each) => each.region === region);
  if (!stack) {
    const regions = stacks.map((each) => each.region).join(', ');
    throw new Error(`${region} is not a region of ${stage}, whose regions are ${regions}.`);
  }
  return stack;
}

/**
 * Reads a stack's outputs in a region.
 *
 * @throws Error naming the stack when it cannot be read.
 */
export type StackOutputsReader = (
  stack: string,
  region: string,
) => Promise<ReadonlyMap<string, string>>;

/** Where {@link stageStacks} looks, and for which regions. */
export interface StageStacksOptions {
  /**
   * The region whose stack is the home stack: the commands take the AWS SDK's region
   * (`AWS_REGION`, `AWS_PROFILE`'s region), as they did when a stage had one region.
   */
  readonly homeRegion: string;
  /** Only this region's stack. Default: every region of the stage, the home region first. */
  readonly region?: string;
  /** @default {@link cloudFormationOutputs}() (DescribeStacks with a client per region) */
  readonly read?: StackOutputsReader;
}

/**
 * The stage's stacks: the home stack's output `Regions` (absent: the stage has one region, the
 * home region) lists the regions, home first; each other region's stack is read in its region.
 *
 * @returns One {@link RegionStack} per region, in the order of `Regions`; only `region`'s when
 *   given (the home stack is read all the same, to check that the stage has that region).
 * @throws Error when a stack cannot be read, `Regions` does not start with `homeRegion` (the SDK's
 *   region is not the stage's home), or `region` is not one of the stage's regions.
 */
export async function stageStacks(
  stage: StageName,
  { homeRegion, region, read = cloudFormationOutputs() }: StageStacksOptions,
): Promise<RegionStack[]> {
  const homeOutputs = await read(stackName(stage), homeRegion);
  const all = regionStackNames(stage, homeOutputs.get(STACK_OUTPUTS.regions), homeRegion);
  const home = all[0]?.region;
  if (home !== homeRegion) {
    throw new Error(
      `Stack ${stackName(stage)} in ${homeRegion} says the home region of ${stage} is ${home}: set AWS_REGION to ${home}.`,
    );
  }
  if (region !== undefined) stackInRegion(all, stage, region);
  const stacks: RegionStack[] = [];
  for (const each of all.filter((stack) => region === undefined || stack.region === region)) {
    const outputs = each.home ? homeOutputs : await read(each.stackName, each.region);
    stacks.push({ ...each, outputs });
  }
  return stacks;
}

/**
 * The stage's stacks ({@link stageStacks}) as the keys and restore commands read them: the home
 * region is `cloudFormation`'s (the SDK's region), whose client reads the home stack; each other
 * region's stack is read with `cloudFormationIn(region)`.
 *
 * @param region Only this region's stack. Default: every region of the stage, home first.
 * @throws Error as {@link stageStacks}.
 */
export async function stacksOfStage(
  stage: StageName,
  clients: {
    readonly cloudFormation: CloudFormationClient;
    readonly cloudFormationIn: (region: string) => CloudFormationClient;
  },
  region?: string,
): Promise<RegionStack[]> {
  const homeRegion = await clients.cloudFormation.config.region();
  const read = cloudFormationOutputs((each) =>
    each === homeRegion ? clients.cloudFormation : clients.cloudFormationIn(each),
  );
  return stageStacks(stage, { homeRegion, region, read });
}

/**
 * Reads outputs with CloudFormation DescribeStacks, one client per region.
 *
 * @param client The client of a region. Default: a new `CloudFormationClient` in that region,
 *   credentials from the SDK's default chain.
 */
export function cloudFormationOutputs(
  client: (region: string) => CloudFormationClient = (region) =>
    new CloudFormationClient({ region }),
): StackOutputsReader {
  const clients = new Map<string, CloudFormationClient>();
  return (stack, region) => {
    let cloudFormation = clients.get(region);
    if (!cloudFormation) {
      cloudFormation = client(region);
      clients.set(region, cloudFormation);
    }
    return stackOutputs(cloudFormation, stack);
  };
}

/**
 * Reads outputs from the files `cdk deploy --outputs-file` wrote (`{"<stack>": {"<output>": …}}`;
 * a later file's stack wins), no AWS call: how the deploy workflow, whose role may not describe
 * stacks, hands each region's outputs to the smoke test.
 *
 * @throws Error (when read) naming the stack none of the files holds; on an unreadable file.
 */
export async function outputsFiles(files: readonly string[]): Promise<StackOutputsReader> {
  const stacks = new Map<string, ReadonlyMap<string, string>>();
  for (const file of files) {
    const byStack = JSON.parse(await readFile(file, 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    for (const [stack, outputs] of Object.entries(byStack)) {
      stacks.set(stack, new Map(Object.entries(outputs)));
    }
  }
  return async (stack) => {
    const outputs = stacks.get(stack);
    if (!outputs) throw new Error(`No outputs of stack ${stack} in ${files.join(', ')}.`);
    return outputs;
  };
}

/**
 * The AWS SDK's region (`AWS_REGION`, or `AWS_PROFILE`'s `region`): the home region a command
 * takes when it reads a deployed stage.
 *
 * @throws Error asking for AWS_REGION when the SDK has none.
 */
export async function sdkRegion(): Promise<string> {
  try {
    return await new CloudFormationClient({}).config.region();
  } catch (error) {
    throw new Error("No AWS region: set AWS_REGION to the stage's home region.", { cause: error });
  }
}
