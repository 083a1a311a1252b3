import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { outputsFiles, sdkRegion, stageStacks } from '../../infra/cli/common/stage-stacks.ts';
import { describedStack } from '../support/cloudformation.ts';

const cloudFormation = mockClient(CloudFormationClient);

/** The stacks CloudFormation knows, by region then stack name: their outputs. */
type Deployed = Record<string, Record<string, Record<string, string>>>;

/** Answers DescribeStacks from `deployed` in the region of the client that sends it. */
function deploy(deployed: Deployed): void {
  cloudFormation.on(DescribeStacksCommand).callsFake(async ({ StackName }, getClient) => {
    const region = await getClient().config.region();
    const outputs = deployed[region]?.[StackName];
    if (!outputs) throw new Error(`Stack with id ${StackName} does not exist`);
    return describedStack(StackName, outputs);
  });
}

const TWO_REGIONS: Deployed = {
  'us-east-1': {
    'petstore-production': {
      Regions: 'us-east-1,us-west-2',
      RegionalApiBaseUrl: 'https://east.example/v1/',
    },
  },
  'us-west-2': {
    'petstore-production-us-west-2': {
      Regions: 'us-east-1,us-west-2',
      RegionalApiBaseUrl: 'https://west.example/v1/',
    },
  },
};

/** What each stack says, by region: enough to tell which stack was read where. */
const seen = (stacks: Awaited<ReturnType<typeof stageStacks>>) =>
  stacks.map(({ region, home, stackName, outputs }) => ({
    region,
    home,
    stackName,
    url: outputs.get('RegionalApiBaseUrl'),
  }));

beforeEach(() => cloudFormation.reset());

describe('stageStacks', () => {
  it('reads the home stack in the home region, then each other region’s stack in its region', async () => {
    deploy(TWO_REGIONS);
    expect(seen(await stageStacks('production', { homeRegion: 'us-east-1' }))).toEqual([
      {
        region: 'us-east-1',
        home: true,
        stackName: 'petstore-production',
        url: 'https://east.example/v1/',
      },
      {
        region: 'us-west-2',
        home: false,
        stackName: 'petstore-production-us-west-2',
        url: 'https://west.example/v1/',
      },
    ]);
  });

  it('with a region, gives only that region’s stack', async () => {
    deploy(TWO_REGIONS);
    const stacks = await stageStacks('production', {
      homeRegion: 'us-east-1',
      region: 'us-west-2',
    });
    expect(seen(stacks)).toEqual([
      {
        region: 'us-west-2',
        home: false,
        stackName: 'petstore-production-us-west-2',
        url: 'https://west.example/v1/',
      },
    ]);
  });

  it('with the home region, reads no other region', async () => {
    deploy(TWO_REGIONS);
    const stacks = await stageStacks('production', {
      homeRegion: 'us-east-1',
      region: 'us-east-1',
    });
    expect(stacks.map(({ stackName }) => stackName)).toEqual(['petstore-production']);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(1);
  });

  it('takes a stack without a Regions output (one region) for its own region’s', async () => {
    deploy({ 'eu-west-1': { 'petstore-staging': { ApiBaseUrl: 'https://s.example/v1/' } } });
    const stacks = await stageStacks('staging', { homeRegion: 'eu-west-1' });
    expect(stacks.map(({ region, home, stackName }) => ({ region, home, stackName }))).toEqual([
      { region: 'eu-west-1', home: true, stackName: 'petstore-staging' },
    ]);
  });

  it('refuses a region the stage does not have, naming its regions', async () => {
    deploy(TWO_REGIONS);
    await expect(
      stageStacks('production', { homeRegion: 'us-east-1', region: 'eu-west-1' }),
    ).rejects.toThrow(
      'eu-west-1 is not a region of production, whose regions are us-east-1, us-west-2.',
    );
  });

  it('refuses a home region that the home stack says is not the home', async () => {
    deploy({ 'us-west-2': { 'petstore-production': { Regions: 'us-east-1,us-west-2' } } });
    await expect(stageStacks('production', { homeRegion: 'us-west-2' })).rejects.toThrow(
      'says the home region of production is us-east-1: set AWS_REGION to us-east-1.',
    );
  });

  it('names the stack and its region’s failure when a region’s stack is missing', async () => {
    deploy({ 'us-east-1': TWO_REGIONS['us-east-1'] as Deployed[string] });
    await expect(stageStacks('production', { homeRegion: 'us-east-1' })).rejects.toThrow(
      /Cannot read stack petstore-production-us-west-2 .*does not exist/,
    );
  });
});

describe('outputsFiles', () => {
  it('reads the stacks of several cdk --outputs-file files, no AWS call', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'stage-stacks-'));
    const files = Object.entries(TWO_REGIONS).map(([region, stacks]) => {
      const file = join(directory, `${region}.json`);
      return { file, written: writeFile(file, JSON.stringify(stacks)) };
    });
    await Promise.all(files.map(({ written }) => written));
    const read = await outputsFiles(files.map(({ file }) => file));
    const stacks = await stageStacks('production', { homeRegion: 'us-east-1', read });
    expect(stacks.map(({ outputs }) => outputs.get('RegionalApiBaseUrl'))).toEqual([
      'https://east.example/v1/',
      'https://west.example/v1/',
    ]);
    expect(cloudFormation.calls()).toHaveLength(0);
    await expect(read('petstore-staging', 'us-east-1')).rejects.toThrow(
      'No outputs of stack petstore-staging in',
    );
  });
});

describe('sdkRegion', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is the SDK's region: AWS_REGION", async () => {
    vi.stubEnv('AWS_REGION', 'eu-west-3');
    expect(await sdkRegion()).toBe('eu-west-3');
  });

  it('asks for AWS_REGION when the SDK has no region', async () => {
    for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/config');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/credentials');
    await expect(sdkRegion()).rejects.toThrow(
      "No AWS region: set AWS_REGION to the stage's home region.",
    );
  });
});
