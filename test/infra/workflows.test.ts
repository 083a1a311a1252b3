/**
 * The GitHub Actions files (.github/): GitHub's own parser accepts every workflow and action,
 * every third-party action is pinned to a full commit SHA with its version in a comment, every
 * `run:` script passes shellcheck, and CI runs the README's test command, synthesizes and diffs.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  actionErrors,
  actionsFiles,
  expression,
  readAction,
  readText,
  readWorkflow,
  runScripts,
  withPlaceholders,
  workflowErrors,
} from '../support/workflows.ts';

const { workflows, actions } = actionsFiles();

/** shellcheck's findings on one script, as bash runs a step (GitHub's `shell: bash`). */
function shellcheck(script: string): string {
  const result = spawnSync('shellcheck', ['-s', 'bash', '-f', 'gcc', '-'], {
    input: script,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return result.stdout;
}

describe('GitHub Actions files', () => {
  it('are the CI and deploy workflows and the deploy-stage and install actions', () => {
    expect(workflows).toEqual(['.github/workflows/ci.yml', '.github/workflows/deploy.yml']);
    expect(actions).toEqual([
      '.github/actions/deploy-stage/action.yml',
      '.github/actions/install/action.yml',
    ]);
  });

  it.each(workflows)("GitHub's workflow parser accepts %s", async (path) => {
    expect(await workflowErrors(path)).toEqual([]);
  });

  it.each(actions)("GitHub's action parser accepts %s", (path) => {
    expect(actionErrors(path)).toEqual([]);
  });

  it.each([
    ['timeout-minutes: 15', 'timeout-minute: 15', /Unexpected value 'timeout-minute'/],
    ['needs: staging', 'needs: stagin', /Job 'production' depends on unknown job 'stagin'/],
  ])('the parser refuses deploy.yml with %j as %j', async (written, breach, error) => {
    const deploy = readText('.github/workflows/deploy.yml');

    expect(await workflowErrors('deploy.yml', deploy.replace(written, breach))).toEqual([
      expect.stringMatching(error),
    ]);
  });

  it.each([
    ['if: failure() &&', 'if: failure( &&', [/Unexpected symbol: '&&'/]],
    [
      'shell: bash',
      'shel: bash',
      [/Unexpected value 'shel'/, /Required property is missing: shell/],
    ],
  ])('the parser refuses the deploy-stage action with %j as %j', (written, breach, errors) => {
    const path = '.github/actions/deploy-stage/action.yml';

    expect(actionErrors(path, readText(path).replace(written, breach))).toEqual(
      errors.map((error) => expect.stringMatching(error)),
    );
  });

  it.each([...workflows, ...actions])('every local action %s uses exists', (path) => {
    const local = readText(path)
      .split('\n')
      .flatMap((line) => /^\s*(?:-\s+)?uses:\s*(\.\/\S*)/.exec(line)?.[1] ?? []);

    for (const uses of local) expect(() => readAction(uses)).not.toThrow();
  });

  it.each([...workflows, ...actions])(
    'pins every third-party action of %s to a full commit SHA, its version in a comment',
    (path) => {
      const uses = readText(path)
        .split('\n')
        .flatMap((line) => /^\s*(?:-\s+)?uses:\s*(.*)$/.exec(line)?.[1] ?? [])
        .filter((action) => !action.startsWith('./'));

      expect(uses.length).toBeGreaterThan(0);
      for (const action of uses) {
        expect(action).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$/);
      }
    },
  );

  it('every run: script passes shellcheck', () => {
    const scripts = runScripts();

    expect(scripts.length).toBeGreaterThanOrEqual(10);
    expect(
      scripts.flatMap(({ where, script }) => {
        const findings = shellcheck(script);
        return findings ? [`${where}:\n${findings}`] : [];
      }),
    ).toEqual([]);
  });

  it("the deploy jobs' region-by-region script, .ci/deploy-regions, passes shellcheck", () => {
    expect(shellcheck(readText('.ci/deploy-regions'))).toBe('');
  });

  it('shellcheck finds what it should in a run: script: an expression unquoted, a word split', () => {
    expect(shellcheck(withPlaceholders(`echo ${expression('matrix.stage')}`))).toMatch(/SC2086/);
  });
});

describe('CI workflow', () => {
  const ci = readWorkflow('.github/workflows/ci.yml');

  it('runs on every pull request and push, with read-only contents', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(ci.on.push).toBeNull();
    expect(ci.permissions).toEqual({ contents: 'read' });
  });

  it("runs the README's test command through .ci/run, with Java 17 and cfn-lint 1.51 installed", () => {
    const { steps } = ci.jobs.test ?? { steps: [] };

    expect(steps.at(-1)?.run).toBe('.ci/run');
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-java@'))?.with).toEqual({
      distribution: 'temurin',
      'java-version': '17',
    });
    expect(steps.map((step) => step.run)).toContain('pipx install cfn-lint==1.51.0');
    expect(readText('README.md')).toContain('.ci/run');
  });

  it('synthesizes both stages with the project install and keeps cdk.out for the diffs', () => {
    const { steps } = ci.jobs.synth ?? { steps: [] };

    expect(steps.map((step) => step.uses ?? step.run)).toEqual([
      expect.stringMatching(/^actions\/checkout@/),
      './.github/actions/install',
      'npm run synth',
      expect.stringMatching(/^actions\/upload-artifact@/),
    ]);
    expect(steps[3]?.with).toMatchObject({ name: 'cdk.out', path: 'cdk.out' });
  });

  it('diffs each stage on pull requests through its read-only role, or says in one line there is none', () => {
    const diff = ci.jobs.diff as unknown as {
      if: string;
      needs: string;
      permissions: Record<string, string>;
      strategy: { matrix: { include: Record<string, string>[] } };
      steps: { if?: string; run?: string; uses?: string; with?: Record<string, string> }[];
    };

    expect(diff.if).toBe("github.event_name == 'pull_request'");
    expect(diff.needs).toBe('synth');
    expect(diff.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(diff.strategy.matrix.include.map((row) => [row.stage, row.variable])).toEqual([
      ['staging', 'AWS_STAGING_DIFF_ROLE_ARN'],
      ['production', 'AWS_PRODUCTION_DIFF_ROLE_ARN'],
    ]);
    for (const row of diff.strategy.matrix.include) {
      expect(row.role).toContain(`vars.${row.variable}`);
      expect(row.region).toBe(expression(`vars.AWS_${row.stage?.toUpperCase()}_REGION`));
    }
    const [notice, ...withRole] = diff.steps;
    expect(notice?.if).toBe("matrix.role == ''");
    expect(notice?.run).toMatch(/^line=.*\necho "::notice::\$line"\n/);
    expect(withRole.every((step) => step.if === "matrix.role != ''")).toBe(true);
    const credentials = withRole.find((step) => step.uses?.includes('configure-aws-credentials'));
    expect(credentials?.with?.['role-to-assume']).toBe(expression('matrix.role'));
    expect(withRole.at(-1)?.run).toContain(
      'npx cdk diff --app cdk.out "$STAGE/*" --method template',
    );
    expect(withRole.at(-1)?.run).toContain('>> "$GITHUB_STEP_SUMMARY"');
  });

  it('gives an OIDC token only to the job that assumes a role, and bounds every job', () => {
    for (const [id, job] of Object.entries(ci.jobs)) {
      const assumesRole = job.steps.some((step) =>
        step.uses?.includes('configure-aws-credentials'),
      );
      expect([id, job.permissions?.['id-token'] === 'write']).toEqual([id, assumesRole]);
      expect([id, job['timeout-minutes']]).toEqual([id, expect.any(Number)]);
    }
  });
});
