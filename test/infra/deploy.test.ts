import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnOutput, Stack, Stage } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  assemblyStacks,
  deployArguments,
  deployRequest,
  runDeployCommand,
  USAGE,
} from '../../infra/cli/deploy.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { STAGES } from '../../infra/stages.ts';
import { flagsNamed, programOf } from '../support/command-usage.ts';
import { deploymentApp, ENVIRONMENTS, environmentContext } from '../support/deployment-app.ts';

const DEPLOY_SCRIPT = join(REPOSITORY_ROOT, 'infra/cli/deploy.ts');

/** Runs `npm run deploy -- <args>` as npm would: the script under tsx. */
function runDeploy(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', DEPLOY_SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
}

/** Output dropped, for a run of the command that only prints its help. */
const SILENT = { stdout: () => {}, stderr: () => {} };

describe('deploy command', () => {
  it('deploys every stack of the named stage, without notices', () => {
    expect(deployRequest(['staging'])).toEqual({
      stage: 'staging',
      region: undefined,
      listRegions: false,
      app: undefined,
      cdkOptions: [],
    });
    expect(deployArguments(['production/*'], [])).toEqual([
      'deploy',
      'production/*',
      '--no-notices',
    ]);
  });

  it('passes further arguments on to cdk deploy, taking out --region and --list-regions', () => {
    const request = deployRequest([
      'production',
      '--region',
      'us-west-2',
      '--app',
      'cdk.out',
      '--require-approval',
      'never',
    ]);

    expect(request).toMatchObject({ region: 'us-west-2', app: 'cdk.out', listRegions: false });
    expect(deployArguments(['production/Petstore-us-west-2'], request?.cdkOptions ?? [])).toEqual([
      'deploy',
      'production/Petstore-us-west-2',
      '--no-notices',
      '--app',
      'cdk.out',
      '--require-approval',
      'never',
    ]);
    expect(deployRequest(['staging', '--region=eu-west-1', '--list-regions'])).toMatchObject({
      region: 'eu-west-1',
      listRegions: true,
      cdkOptions: [],
    });
  });

  it('refuses a missing, unknown or misplaced stage, and --region without a value', () => {
    expect(deployRequest([])).toBeUndefined();
    expect(deployRequest(['dev'])).toBeUndefined();
    expect(deployRequest(['Staging'])).toBeUndefined();
    expect(deployRequest(['--all', 'staging'])).toBeUndefined();
    expect(deployRequest(['staging', '--region'])).toBeUndefined();
    expect(deployRequest(['staging', '--region', '--app'])).toBeUndefined();
  });

  it('prints one usage line and exits with status 2 when the stage is wrong', () => {
    const result = runDeploy(['dev']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${USAGE}\n`);
    expect(result.stdout).toBe('');
  });

  it("runs the project's cdk CLI with the stage's arguments", () => {
    const result = runDeploy(['staging', '--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('cdk deploy [STACKS..]');
  });

  it('prints the usage line and exits with status 2 when no stage is given', () => {
    const result = runDeploy([]);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${USAGE}\n`);
  });

  it('prints its help and exits 0 for --help, naming each stage and argument; each option it names is taken out or is a cdk deploy option', async () => {
    const result = runDeploy(['--help']);
    const program = await programOf(() => runDeployCommand(['--help'], SILENT));
    const cdkHelp = runDeploy(['staging', '--help']).stdout;

    expect([result.status, result.stderr]).toEqual([0, '']);
    for (const name of [...STAGES, ...program.registeredArguments.map((each) => each.name())]) {
      expect(result.stdout).toContain(name);
    }
    const named = flagsNamed(result.stdout);
    expect(named.length).toBeGreaterThan(0);
    for (const flag of named) {
      const taken = !deployRequest(['staging', flag, 'us-east-1'])?.cdkOptions.includes(flag);
      expect([flag, taken || cdkHelp.includes(flag)]).toEqual([flag, true]);
    }
  });

  it('prints the usage line and exits with status 2 for an option before the stage', () => {
    const result = runDeploy(['--all', 'staging']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${USAGE}\n`);
    expect(result.stdout).toBe('');
  });
});

/**
 * A synthesized cloud assembly with production's stacks as the app names them: the home stack
 * `production/Petstore` (its output `Regions` when given) and one `production/Petstore-<R>` in
 * each other region.
 */
function assembly(regions: string[], withRegionsOutput = true): string {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'petstore-deploy-')) });
  const stage = new Stage(app, 'production');
  regions.forEach((region, index) => {
    const stack = new Stack(stage, index === 0 ? 'Petstore' : `Petstore-${region}`, {
      stackName: index === 0 ? 'petstore-production' : `petstore-production-${region}`,
      env: { account: '222222222222', region },
    });
    if (withRegionsOutput) new CfnOutput(stack, 'Regions', { value: regions.join(',') });
  });
  return app.synth().directory;
}

describe("a stage's regions in the cloud assembly", () => {
  it('are the home stack first, then each other region in the order of its Regions output', () => {
    const directory = assembly(['us-east-1', 'us-west-2', 'eu-west-1']);

    expect(assemblyStacks(directory, 'production')).toEqual([
      { region: 'us-east-1', path: 'production/Petstore' },
      { region: 'us-west-2', path: 'production/Petstore-us-west-2' },
      { region: 'eu-west-1', path: 'production/Petstore-eu-west-1' },
    ]);
  });

  it("are the home stack's region alone without a Regions output", () => {
    expect(assemblyStacks(assembly(['us-east-1'], false), 'production')).toEqual([
      { region: 'us-east-1', path: 'production/Petstore' },
    ]);
  });

  it('name what is missing: the home stack, or a region of the Regions output', () => {
    const directory = assembly(['us-east-1', 'us-west-2']);
    expect(() => assemblyStacks(directory, 'staging')).toThrow(
      `The cloud assembly ${directory} has no stack petstore-staging.`,
    );
    rmSync(join(directory, 'assembly-production'), { recursive: true, force: true });
    const app = new App({ outdir: directory });
    const stack = new Stack(new Stage(app, 'production'), 'Petstore', {
      stackName: 'petstore-production',
      env: { account: '222222222222', region: 'us-east-1' },
    });
    new CfnOutput(stack, 'Regions', { value: 'us-east-1,us-west-2' });
    expect(() => assemblyStacks(app.synth().directory, 'production')).toThrow(
      'has no stack petstore-production-us-west-2 in us-west-2.',
    );
  });

  it('are printed, home first, by --list-regions; a region not of the stage is refused', () => {
    const directory = assembly(['us-east-1', 'us-west-2']);

    const listed = runDeploy(['production', '--list-regions', '--app', directory]);
    expect([listed.status, listed.stdout, listed.stderr]).toEqual([
      0,
      'us-east-1\nus-west-2\n',
      '',
    ]);
    const refused = runDeploy(['production', '--region', 'eu-west-1', '--app', directory]);
    expect([refused.status, refused.stderr]).toEqual([
      1,
      'deploy: eu-west-1 is not a region of production, whose regions are us-east-1, us-west-2.\n',
    ]);
  });
});

// Synthesizes the whole app, its Control Tower checks included (cfn-guard).
describe("the app's own cloud assembly", { timeout: 120_000 }, () => {
  it("gives each stage's home stack in its region", () => {
    const { app } = deploymentApp(environmentContext());
    const { directory } = app.synth();

    for (const stage of STAGES) {
      expect(assemblyStacks(directory, stage)).toEqual([
        { region: ENVIRONMENTS[stage].region, path: `${stage}/Petstore` },
      ]);
    }
  });
});
