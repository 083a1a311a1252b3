/**
 * The deploy workflow's properties (.github/workflows/deploy.yml, its steps resolved through the
 * deploy-stage composite action as the runner runs them): one synthesis whose cdk.out both stages
 * deploy, staging before production and production only after staging, production behind its
 * environment's reviewers once, each stage's job in its own environment (the OIDC `sub` its roles
 * trust), a rollback of the region whose smoke test fails where the account stacks give a rollback
 * role, OIDC tokens only where a role is assumed, one deploy per stage at a time, and a bound on
 * every job. What the deploy and smoke steps do to a stack is run against the local one in
 * test/integration/deploy-job.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ROLLBACK_ON_FAILED_SMOKE, STAGES, type StageName } from '../../infra/stages.ts';
import {
  expression,
  type Job,
  type ResolvedStep,
  readWorkflow,
  resolveSteps,
  runsWhen,
  type Step,
} from '../support/workflows.ts';

const deploy = readWorkflow('.github/workflows/deploy.yml');
const jobs = Object.entries(deploy.jobs).map(([id, job]) => ({
  id,
  job,
  steps: resolveSteps(job.steps),
}));

/** The action a step uses, without its ref: `actions/upload-artifact`. */
const action = (step: Step) => step.uses?.split('@')[0];

/** Whether a step synthesizes the app (the CDK CLI without an existing assembly). */
const synthesizes = (step: Step) =>
  /\b(cdk|npm run) synth\b/.test(step.run ?? '') ||
  (/\b(cdk|npm run) deploy\b/.test(step.run ?? '') && !step.run?.includes('--app cdk.out'));

/** The stage a step deploys region by region (.ci/deploy-regions "$STAGE"), if it does. */
const deploysStage = (step: ResolvedStep) =>
  step.run?.startsWith('.ci/deploy-regions') ? step.env?.STAGE : undefined;

/** Whether a step assumes an AWS role. */
const assumesRole = (step: Step) => action(step) === 'aws-actions/configure-aws-credentials';

/** The job deploying `stage`, its steps resolved. */
function stageJob(stage: StageName) {
  const found = jobs.filter(({ steps }) => steps.some((step) => deploysStage(step) === stage));
  if (found.length !== 1) throw new Error(`deploy.yml has ${found.length} jobs deploying ${stage}`);
  return found[0] as (typeof jobs)[number];
}

/** The ids of the jobs `job` waits for, directly or through others. */
function upstream(job: Job): string[] {
  const needs = job.needs === undefined ? [] : [job.needs].flat();
  return [...needs, ...needs.flatMap((id) => upstream(deploy.jobs[id] ?? { steps: [] }))];
}

/** The index of the first step matching `test`, failing when there is none. */
function indexOf(steps: readonly ResolvedStep[], test: (step: ResolvedStep) => boolean): number {
  const index = steps.findIndex(test);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

/** The steps of `steps` that run after a step of them fails, given the outputs set by then. */
const runAfterFailure = (
  steps: readonly ResolvedStep[],
  outputs: Record<string, Record<string, string>>,
) => steps.filter((step) => runsWhen(step, { failed: true, outputs }));

describe('deploy workflow', () => {
  it('runs on push to main and by hand, with read-only contents for the whole workflow', () => {
    expect(deploy.on).toEqual({ push: { branches: ['main'] }, workflow_dispatch: null });
    expect(deploy.permissions).toEqual({ contents: 'read' });
  });

  it('synthesizes once, in a job that uploads that cdk.out, which every stage job downloads and none synthesizes again', () => {
    const synth = jobs.filter(({ steps }) => steps.some(synthesizes));
    const uploads = jobs.filter(({ steps }) =>
      steps.some((step) => action(step) === 'actions/upload-artifact'),
    );

    expect(synth.map(({ id }) => id)).toEqual(uploads.map(({ id }) => id));
    expect(synth).toHaveLength(1);
    const { steps } = synth[0] as (typeof jobs)[number];
    const upload = steps.find((step) => action(step) === 'actions/upload-artifact');
    expect(upload?.with).toMatchObject({ name: 'cdk.out', path: 'cdk.out' });
    expect(indexOf(steps, synthesizes)).toBeLessThan(steps.indexOf(upload as ResolvedStep));
    for (const stage of STAGES) {
      const job = stageJob(stage);
      expect(upstream(job.job)).toContain(synth[0]?.id);
      const download = job.steps.find((step) => action(step) === 'actions/download-artifact');
      expect(download?.with).toEqual({ name: 'cdk.out', path: 'cdk.out' });
    }
  });

  it('deploys production only after staging, which it needs directly and unconditionally', () => {
    const staging = stageJob('staging');
    const production = stageJob('production');

    expect([production.job.needs].flat()).toContain(staging.id);
    expect(upstream(staging.job)).not.toContain(production.id);
    expect(production.job.if).toBeUndefined();
  });

  it.each(STAGES)(
    '%s: in its own environment, no matrix, with its own role and home region, deploys the downloaded cdk.out region by region, then smoke-tests the global address',
    (stage) => {
      const { job, steps } = stageJob(stage);
      const upper = stage.toUpperCase();
      const credentials = steps.find(assumesRole);

      expect(job.environment).toBe(stage);
      expect((job as { strategy?: unknown }).strategy).toBeUndefined();
      expect(credentials?.with).toEqual({
        'role-to-assume': expression(`vars.AWS_${upper}_ROLE_ARN`),
        'aws-region': expression(`vars.AWS_${upper}_REGION`),
      });
      const order = [
        indexOf(steps, (step) => action(step) === 'actions/checkout'),
        indexOf(steps, (step) => action(step) === 'actions/setup-node'),
        indexOf(steps, (step) => action(step) === 'actions/download-artifact'),
        steps.indexOf(credentials as ResolvedStep),
        indexOf(steps, (step) => deploysStage(step) === stage),
        indexOf(steps, (step) => /\bnpm run smoke\b.*--global/.test(step.run ?? '')),
      ];
      expect(order).toEqual([...order].sort((a, b) => a - b));
      const smokes = steps.filter((step) =>
        /^(\.ci\/deploy-regions|npm run smoke)\b/.test(step.run ?? ''),
      );
      expect(smokes.map((step) => step.env?.PETSTORE_API_KEY)).toEqual(
        smokes.map(() => expression('secrets.PETSTORE_API_KEY')),
      );
    },
  );

  it("asks for production's approval once: one job names each environment", () => {
    for (const stage of STAGES) {
      expect(jobs.filter(({ job }) => job.environment === stage)).toEqual([stageJob(stage)]);
    }
  });

  it.each(STAGES)(
    "%s: after a region's failed smoke test, rolls that region back through the stage's rollback role exactly where the account stacks give one; after the global one, nothing",
    (stage) => {
      const { steps } = stageJob(stage);
      const regions = steps.find((step) => deploysStage(step) === stage);
      const failedRegion = { [regions?.id ?? '']: { 'smoke-failed': 'us-west-2' } };
      const onRegion = runAfterFailure(steps, failedRegion);
      const onGlobal = runAfterFailure(steps, { [regions?.id ?? '']: {} });

      expect(onGlobal).toEqual([]);
      if (!ROLLBACK_ON_FAILED_SMOKE.includes(stage)) {
        expect(onRegion).toEqual([]);
        return;
      }
      const [credentials, rollback, ...more] = onRegion;
      expect(more).toEqual([]);
      expect(credentials?.with).toEqual({
        'role-to-assume': expression(`vars.AWS_${stage.toUpperCase()}_ROLLBACK_ROLE_ARN`),
        'aws-region': expression(`vars.AWS_${stage.toUpperCase()}_REGION`),
      });
      expect(rollback?.run).toMatch(/^npm run rollback -- /);
      expect(rollback?.env?.REGION).toBe(expression(`steps.${regions?.id}.outputs.smoke-failed`));
      expect(rollback?.env?.STAGE).toBe(stage);
      expect(steps.every((step) => !('continue-on-error' in step))).toBe(true);
    },
  );

  it.each(STAGES)('%s: runs every step but the rollback when none fails', (stage) => {
    const { steps } = stageJob(stage);
    const skipped = steps.filter((step) => !runsWhen(step, { failed: false, outputs: {} }));

    const rollbackRole = (step: ResolvedStep) =>
      assumesRole(step) && step !== steps.find(assumesRole);
    expect(
      skipped.filter((step) => !rollbackRole(step) && !step.run?.startsWith('npm run rollback')),
    ).toEqual([]);
  });

  it('gives an OIDC token only to the jobs that assume a role', () => {
    for (const { id, job, steps } of jobs) {
      expect([id, job.permissions]).toEqual([
        id,
        steps.some(assumesRole) ? { contents: 'read', 'id-token': 'write' } : undefined,
      ]);
    }
  });

  it.each(STAGES)(
    'deploys %s one run at a time, never cancelling a deploy in progress',
    (stage) => {
      const { concurrency } = stageJob(stage).job;

      expect(concurrency).toMatchObject({ 'cancel-in-progress': false });
      const others = STAGES.filter((other) => other !== stage).map(
        (other) => stageJob(other).job.concurrency,
      );
      expect(typeof concurrency === 'object' && concurrency.group).toMatch(/^[^$]+$/);
      expect(others).not.toContainEqual(concurrency);
    },
  );

  it('bounds every job with a timeout', () => {
    for (const { id, job } of jobs) {
      expect([id, job['timeout-minutes']]).toEqual([id, expect.any(Number)]);
    }
  });
});
