/**
 * A deployed stage's stack outputs, read with CloudFormation DescribeStacks: how the keys command
 * and the smoke test find a stage's tables, usage plans and base URL.
 */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

/**
 * The outputs of a deployed stage's stack (DescribeStacks), by output name.
 *
 * @throws Error saying the stage may not be deployed, or credentials and region are missing.
 */
export async function stackOutputs(
  cloudFormation: CloudFormationClient,
  stack: string,
): Promise<Map<string, string>> {
  try {
    const { Stacks = [] } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stack }),
    );
    return new Map(
      (Stacks[0]?.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
        OutputKey && OutputValue ? [[OutputKey, OutputValue] as const] : [],
      ),
    );
  } catch (error) {
    throw cannotReadStack(stack, error);
  }
}

/** The error for a stack CloudFormation would not describe: it says what is likely missing. */
export function cannotReadStack(stack: string, error: unknown): Error {
  return new Error(
    `Cannot read stack ${stack} (is the stage deployed, and are AWS credentials and region set?): ${(error as Error).message}`,
    { cause: error },
  );
}

/**
 * One output of a stack.
 *
 * @throws Error naming the stack and the missing output.
 */
export function requireOutput(
  outputs: ReadonlyMap<string, string>,
  name: string,
  stack: string,
): string {
  const value = outputs.get(name);
  if (value === undefined)
    throw new Error(`Stack ${stack} has no output ${name}: deploy the stage again.`);
  return value;
}
