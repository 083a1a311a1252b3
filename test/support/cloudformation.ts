/**
 * What CloudFormation's DescribeStacks answers for a deployed stack, for tests that mock it with
 * aws-sdk-client-mock (the commands read stage stacks' outputs through it).
 */
import type { DescribeStacksCommandOutput } from '@aws-sdk/client-cloudformation';

/** DescribeStacks' answer for the stack `StackName`, up to date, with `outputs` (name → value). */
export function describedStack(
  StackName: string,
  outputs: Readonly<Record<string, string>>,
): Partial<DescribeStacksCommandOutput> {
  return {
    Stacks: [
      {
        StackName,
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
          OutputKey,
          OutputValue,
        })),
      },
    ],
  };
}
