/**
 * The deploy workflow's job graph (.github/workflows/deploy.yml), as GitHub will run it: one
 * synthesis whose cdk.out both stages deploy, region by region (.ci/deploy-regions), staging's
 * smoke tests before production, production behind its environment's reviewers once, a rollback
 * of the region whose smoke test fails, OIDC tokens only where a role is assumed, one deploy per
 * stage at a time, and a bound on every job.
 */
import { describe, expect, it } from 'vitest';
import { ROLLBACK_ON_FAILED_SMOKE, STAGES, type StageName } from '../../infra/stages.ts';
import { expression, type Job, readText, readWorkflow, type Step } from '../support/workflows.ts';

const deploy = readWorkflow('.github/workflows/deploy.yml');

/** The job deploying `stage`. */
function stageJob(stage: StageName): Job {
  const job = deploy.jobs[stage];
  if (!job) throw new Error(`deploy.yml has no job ${stage}`);
  return job;
}

/** The action a step uses, without its ref: `actions/upload-artifact`. */
const action = (step: Step) => step.uses?.split('@')[0];

/** Whether a step synthesizes the app (the CDK CLI without an existing assembly). */
const synthesizes = (step: Step) =>
  /\b(cdk|npm run) synth\b/.test(step.run ?? '') ||
  (/\b(cdk|npm run) deploy\b/.test(step.run ?? '') && !step.run?.includes('--app cdk.out'));

describe('deploy workflow', () => {
  it('runs on push to main and by hand, with read-only contents for the whole workflow', () => {
    expect(deploy.on).toEqual({ push: { branches: ['main'] }, workflow_dispatch: null });
    expect(deploy.permissions).toEqual({ contents: 'read' });
  });

  it('synthesizes once, in the synth job, and uploads that cdk.out', () => {
    const uploads = Object.entries(deploy.jobs).flatMap(([id, job]) =>
      job.steps.filter((step) => action(step) === 'actions/upload-artifact').map(() => id),
    );
    const synthJobs = Object.entries(deploy.jobs).flatMap(([id, job]) =>
      job.steps.some(synthesizes) ? [id] : [],
    );
    const { steps } = deploy.jobs.synth ?? { steps: [] };

    expect(uploads).toEqual(['synth']);
    expect(synthJobs).toEqual(['synth']);
    expect(steps.map((step) => step.run ?? action(step))).toEqual([
      'actions/checkout',
      './.github/actions/install',
      'npm run synth',
      'actions/upload-artifact',
    ]);
    expect(steps[3]?.with).toMatchObject({ name: 'cdk.out', path: 'cdk.out' });
  });

  it.each(STAGES)(
    '%s deploys the downloaded cdk.out region by region with its own role, then smoke-tests the global address',
    (stage) => {
      const { steps } = stageJob(stage);
      const upper = stage.toUpperCase();
      const key = { PETSTORE_API_KEY: expression('secrets.PETSTORE_API_KEY') };

      expect(steps.map((step) => step.id ?? step.run ?? action(step)).slice(0, 6)).toEqual([
        'actions/checkout',
        './.github/actions/install',
        'actions/download-artifact',
        'aws-actions/configure-aws-credentials',
        'regions',
        'smoke',
      ]);
      expect(steps[2]?.with).toEqual({ name: 'cdk.out', path: 'cdk.out' });
      expect(steps[3]?.with).toEqual({
        'role-to-assume': expression(`vars.AWS_${upper}_ROLE_ARN`),
        'aws-region': expression(`vars.AWS_${upper}_REGION`),
      });
      expect(steps[4]?.run).toBe(`.ci/deploy-regions ${stage}`);
      expect(steps[4]?.env).toEqual(key);
      expect(steps[5]?.run).toBe(
        `npm run smoke -- --stage ${stage} --global --outputs-file "$RUNNER_TEMP/cdk-outputs/$AWS_REGION.json"`,
      );
      expect(steps[5]?.env).toEqual(key);
    },
  );

  it("deploys each region from the assembly's list, home first, with the cdk.out it downloaded", () => {
    const script = readText('.ci/deploy-regions');

    expect(script).toContain('npm run --silent deploy -- "$stage" --list-regions --app cdk.out');
    expect(script).toContain(
      'npm run deploy -- "$stage" --region "$region" --app cdk.out --require-approval never --outputs-file "$file"',
    );
    expect(script).toContain(
      `npm run smoke -- --stage "$stage" --region "$region" "\${outputs[@]}"`,
    );
  });

  it("asks for production's approval once: one job names each environment, with no matrix", () => {
    for (const stage of STAGES) {
      const jobs = Object.entries(deploy.jobs).filter(([, job]) => job.environment === stage);
      expect(jobs.map(([id]) => id)).toEqual([stage]);
      expect((stageJob(stage) as { strategy?: unknown }).strategy).toBeUndefined();
    }
  });

  it('runs staging after the synthesis in environment staging, its smoke test last', () => {
    const staging = stageJob('staging');

    expect(staging.needs).toBe('synth');
    expect(staging.environment).toBe('staging');
    expect(staging.steps.at(-1)?.id).toBe('smoke');
  });

  it("runs production after staging's smoke test, in environment production (its reviewers)", () => {
    const production = stageJob('production');

    expect(production.needs).toBe('staging');
    expect(production.if).toBeUndefined();
    expect(production.environment).toBe('production');
  });

  it("rolls back the region whose smoke test failed through production's rollback role, the job failing with it", () => {
    const { steps } = stageJob('production');
    const [smoke, credentials, rollback] = steps.slice(-3);
    const onFailedSmoke = "failure() && steps.regions.outputs.smoke-failed != ''";

    expect(smoke?.id).toBe('smoke');
    expect(action(credentials ?? {})).toBe('aws-actions/configure-aws-credentials');
    expect(credentials?.if).toBe(onFailedSmoke);
    expect(credentials?.with).toEqual({
      'role-to-assume': expression('vars.AWS_PRODUCTION_ROLLBACK_ROLE_ARN'),
      'aws-region': expression('vars.AWS_PRODUCTION_REGION'),
    });
    expect(rollback?.if).toBe(onFailedSmoke);
    expect(rollback?.env).toEqual({ REGION: expression('steps.regions.outputs.smoke-failed') });
    expect(rollback?.run).toBe('npm run rollback -- --stage production --region "$REGION"');
    expect(steps.every((step) => !('continue-on-error' in step))).toBe(true);
  });

  it('rolls back exactly the stages the account stacks give a rollback role', () => {
    const rollingBack = STAGES.filter((stage) =>
      stageJob(stage).steps.some((step) => step.run?.startsWith('npm run rollback')),
    );

    expect(rollingBack).toEqual(ROLLBACK_ON_FAILED_SMOKE);
  });

  it('gives an OIDC token only to the jobs that assume a role', () => {
    for (const [id, job] of Object.entries(deploy.jobs)) {
      const assumesRole = job.steps.some(
        (step) => action(step) === 'aws-actions/configure-aws-credentials',
      );
      expect([id, job.permissions]).toEqual([
        id,
        assumesRole ? { contents: 'read', 'id-token': 'write' } : undefined,
      ]);
    }
  });

  it.each(STAGES)(
    'deploys %s one run at a time, never cancelling a deploy in progress',
    (stage) => {
      expect(stageJob(stage).concurrency).toEqual({
        group: `deploy-${stage}`,
        'cancel-in-progress': false,
      });
    },
  );

  it('bounds every job with a timeout', () => {
    for (const [id, job] of Object.entries(deploy.jobs)) {
      expect([id, job['timeout-minutes']]).toEqual([id, expect.any(Number)]);
    }
  });
});
