/**
 * The smoke test of a deployed stage (`npm run smoke -- --stage S [--region R | --global]`)
 * calls each region's own base URL (`RegionalApiBaseUrl`, read in that region) and then the
 * stage's global address (`ApiBaseUrl`): with a custom domain, the domain. CloudFormation is
 * mocked per region (aws-sdk-client-mock) to name local gateways, which answer as regions would.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmokeCommand } from '../../infra/cli/smoke.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { regionalStackName, STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import { issueToken } from '../support/api-client.ts';
import { describedStack } from '../support/cloudformation.ts';

const cloudFormation = mockClient(CloudFormationClient);
let east: LocalGateway;
let west: LocalGateway;
let token: string;

beforeAll(async () => {
  [east, west] = await Promise.all([startGateway({ port: 0 }), startGateway({ port: 0 })]);
  token = await issueToken('free');
});
afterAll(async () => {
  cloudFormation.restore();
  await Promise.all([east?.close(), west?.close()]);
});

/**
 * Production in us-east-1 (home) and us-west-2, each region's stack answering DescribeStacks
 * only in its own region; `global` is the ApiBaseUrl both give.
 */
function deployProduction(global: string): void {
  const regions = 'us-east-1,us-west-2';
  const stacks: Record<string, [string, string]> = {
    'us-east-1': [stackName('production'), `${east.url}/`],
    'us-west-2': [regionalStackName('production', 'us-west-2'), `${west.url}/`],
  };
  cloudFormation.reset();
  cloudFormation.on(DescribeStacksCommand).callsFake(async ({ StackName }, getClient) => {
    const [name, regional] = stacks[await getClient().config.region()] ?? [];
    if (StackName !== name) throw new Error(`Stack with id ${StackName} does not exist`);
    return describedStack(StackName, {
      [STACK_OUTPUTS.regions]: regions,
      [STACK_OUTPUTS.regionalApiBaseUrl]: regional as string,
      [STACK_OUTPUTS.apiBaseUrl]: global,
    });
  });
}

/** Runs `npm run smoke -- <args>` in-process, the home region us-east-1 (AWS_REGION). */
async function smoke(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const status = await runSmokeCommand(args, {
    cloudFormation: (region) => new CloudFormationClient({ region }),
    homeRegion: async () => 'us-east-1',
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { status, stdout, stderr };
}

/** The lines naming a target, and how many checks passed after each. */
function targets(lines: string[]): [string, number][] {
  const seen: [string, number][] = [];
  for (const line of lines) {
    const last = seen.at(-1);
    if (line.startsWith('ok   ') && last) last[1]++;
    else if (!line.startsWith('FAIL')) seen.push([line, 0]);
  }
  return seen;
}

describe('smoke test of a stage in two regions', () => {
  it('checks each region’s own base URL, home first, then the global address once', async () => {
    // GIVEN a global address (as a custom domain's) that is neither region's own URL
    const global = `${east.url.replace('127.0.0.1', 'localhost')}/`;
    deployProduction(global);

    const { status, stdout, stderr } = await smoke(['--stage', 'production', '--key', token]);

    expect([status, stderr]).toEqual([0, []]);
    expect(targets(stdout)).toEqual([
      [`us-east-1: ${east.url}/`, 6],
      [`us-west-2: ${west.url}/`, 6],
      [`global: ${global}`, 6],
    ]);
  });

  it('checks the global address only once when it is the home region’s own (no domain)', async () => {
    deployProduction(`${east.url}/`);

    const { status, stdout } = await smoke(['--stage', 'production', '--key', token]);

    expect(status).toBe(0);
    expect(targets(stdout).map(([target]) => target)).toEqual([
      `us-east-1: ${east.url}/`,
      `us-west-2: ${west.url}/`,
    ]);
  });

  it('with --region, checks only that region, read in its own region, and names it when it fails', async () => {
    deployProduction(`${east.url}/`);

    const passing = await smoke(['--stage', 'production', '--region', 'us-west-2', '--key', token]);
    const failing = await smoke(['--stage', 'production', '--region', 'us-west-2', '--key', 'no']);

    expect(targets(passing.stdout)).toEqual([[`us-west-2: ${west.url}/`, 6]]);
    expect(passing.status).toBe(0);
    expect(failing.status).toBe(1);
    expect(failing.stderr).toEqual(['smoke: 5 of 6 checks failed (us-west-2).']);
  });

  it('with --global, checks only the global address', async () => {
    const global = `${west.url.replace('127.0.0.1', 'localhost')}/`;
    deployProduction(global);

    const { status, stdout } = await smoke(['--stage', 'production', '--global', '--key', token]);

    expect(status).toBe(0);
    expect(targets(stdout)).toEqual([[`global: ${global}`, 6]]);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(1);
  });

  it('refuses a region the stage does not have', async () => {
    deployProduction(`${east.url}/`);

    const { status, stderr } = await smoke([
      '--stage',
      'production',
      '--region',
      'eu-west-1',
      '--key',
      token,
    ]);

    expect([status, stderr]).toEqual([
      1,
      ['smoke: eu-west-1 is not a region of production, whose regions are us-east-1, us-west-2.'],
    ]);
  });
});
