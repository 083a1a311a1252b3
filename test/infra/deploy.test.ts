import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployArguments, USAGE } from '../../infra/cli/deploy.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

const DEPLOY_SCRIPT = join(REPOSITORY_ROOT, 'infra/cli/deploy.ts');

/** Runs `npm run deploy -- <args>` as npm would: the script under tsx. */
function runDeploy(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', DEPLOY_SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
}

describe('deploy command', () => {
  it('deploys only the named stage, without notices', () => {
    expect(deployArguments(['staging'])).toEqual(['deploy', 'staging/*', '--no-notices']);
    expect(deployArguments(['production'])).toEqual(['deploy', 'production/*', '--no-notices']);
  });

  it('passes further arguments on to cdk deploy', () => {
    expect(deployArguments(['production', '--require-approval', 'never'])).toEqual([
      'deploy',
      'production/*',
      '--no-notices',
      '--require-approval',
      'never',
    ]);
  });

  it('refuses a missing, unknown or misplaced stage', () => {
    expect(deployArguments([])).toBeUndefined();
    expect(deployArguments(['dev'])).toBeUndefined();
    expect(deployArguments(['Staging'])).toBeUndefined();
    expect(deployArguments(['--all', 'staging'])).toBeUndefined();
  });

  it('prints one usage line and exits with status 2 when the stage is wrong', () => {
    const result = runDeploy(['dev']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'usage: npm run deploy -- staging|production [cdk deploy options]\n',
    );
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

  it('prints its help and exits 0 for --help', () => {
    const result = runDeploy(['--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^Usage: npm run deploy -- staging\|production \[cdk deploy options\]$/m,
    );
    expect(result.stderr).toBe('');
  });

  it('prints the usage line and exits with status 2 for an option before the stage', () => {
    const result = runDeploy(['--all', 'staging']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${USAGE}\n`);
    expect(result.stdout).toBe('');
  });
});
