/**
 * The smoke test of a deployed stage (`npm run smoke -- --stage S`) calls whatever base URL the
 * stage's stack outputs as `ApiBaseUrl`: with a custom domain, the domain. CloudFormation is
 * mocked (aws-sdk-client-mock) to name the local gateway, which answers as a stage would.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmokeCommand } from '../../infra/cli/smoke.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import { issueToken } from '../support/api-client.ts';

const cloudFormation = mockClient(CloudFormationClient);
let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('free');
});
afterAll(() => {
  cloudFormation.restore();
  return gateway?.close();
});

describe('smoke test of a stage', () => {
  it("checks the base URL of the stage's ApiBaseUrl output", async () => {
    // GIVEN production's stack, whose ApiBaseUrl names the local gateway (as it names a domain)
    cloudFormation.on(DescribeStacksCommand, { StackName: stackName('production') }).resolves({
      Stacks: [
        {
          StackName: stackName('production'),
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: [{ OutputKey: STACK_OUTPUTS.apiBaseUrl, OutputValue: `${gateway.url}/` }],
        },
      ],
    });
    const lines: string[] = [];

    // WHEN the smoke command runs against the stage
    const status = await runSmokeCommand(['--stage', 'production', '--key', token], {
      cloudFormation: new CloudFormationClient({}),
      stdout: (line) => lines.push(line),
      stderr: (line) => lines.push(line),
    });

    // THEN every check passed there
    expect(lines).toHaveLength(6);
    expect(
      lines.every((line) => line.startsWith('ok   ')),
      lines.join('\n'),
    ).toBe(true);
    expect(status).toBe(0);
  });
});
