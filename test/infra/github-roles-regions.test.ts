/**
 * The GitHub deploy roles of a stage in two regions (issue 41): the deploy, rollback and
 * pull-request roles of one account stack reach the bootstrap roles, stacks and functions of each
 * of the stage's regions; the template passes cfn-lint. One region per stage: github-roles.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { GitHubRoles } from '../../infra/constructs/github-roles.ts';
import {
  GITHUB_PULL_REQUEST_ROLE_NAME,
  githubRoleName,
  githubRollbackRoleName,
} from '../../infra/stages.ts';
import { cfnLintTemplates } from '../support/cfn-lint.ts';
import { REPOSITORY } from '../support/deployment-app.ts';
import { bootstrapRoles, roleNamed } from '../support/github-roles-template.ts';

describe('a stage in two regions', () => {
  // GIVEN production at home in us-east-1 and also in us-west-2, staging in us-east-1 alone
  const account = '222222222222';
  const regions = ['us-east-1', 'us-west-2'];
  let app: App;
  let template: Template;
  beforeAll(() => {
    app = new App({
      context: cdkJson.context,
      outdir: mkdtempSync(join(tmpdir(), 'petstore-github-roles-')),
    });
    const stack = new Stack(app, 'Account', { env: { account, region: 'us-east-1' } });
    new GitHubRoles(stack, 'GitHub', {
      repository: REPOSITORY,
      qualifier: 'hnb659fds',
      stages: [
        { stage: 'staging', regions: ['us-east-1'] },
        { stage: 'production', regions },
      ],
    });
    template = Template.fromStack(stack);
  });

  it("lets the deploy role assume the bootstrap roles of each of the stage's regions, no other", () => {
    const statements = roleNamed(template, githubRoleName('production')).Policies[0].PolicyDocument
      .Statement;
    const expected = regions.flatMap((region) =>
      bootstrapRoles(['deploy', 'file-publishing', 'lookup'], { account, region }),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('sts:AssumeRole');
    expect([...statements[0].Resource].sort()).toEqual(expected.sort());
    const staging = roleNamed(template, githubRoleName('staging')).Policies[0].PolicyDocument
      .Statement[0].Resource;
    expect(staging).toEqual(
      bootstrapRoles(['deploy', 'file-publishing', 'lookup'], { account, region: 'us-east-1' }),
    );
  });

  it("lets the rollback role act on each region's own stack and functions", () => {
    const arn = (service: string, region: string, name: string) =>
      `arn:aws:${service}:${region}:${account}:${name}`;
    const stacks = {
      'us-east-1': 'petstore-production',
      'us-west-2': 'petstore-production-us-west-2',
    };
    const functions = Object.entries(stacks).map(([region, name]) =>
      arn('lambda', region, `function:${name}-*`),
    );

    expect(
      roleNamed(template, githubRollbackRoleName('production')).Policies[0].PolicyDocument
        .Statement,
    ).toEqual([
      {
        Effect: 'Allow',
        Action: ['cloudformation:DescribeStacks', 'cloudformation:ListStackResources'],
        Resource: Object.entries(stacks).map(([region, name]) =>
          arn('cloudformation', region, `stack/${name}/*`),
        ),
      },
      {
        Effect: 'Allow',
        Action: ['codedeploy:ListDeployments', 'codedeploy:StopDeployment'],
        Resource: regions.map((region) => arn('codedeploy', region, 'deploymentgroup:*')),
      },
      {
        Effect: 'Allow',
        Action: ['lambda:GetAlias', 'lambda:ListVersionsByFunction', 'lambda:UpdateAlias'],
        Resource: functions.flatMap((each) => [each, `${each}:*`]),
      },
    ]);
  });

  it('passes cfn-lint', () => {
    const { directory } = app.synth();
    const result = cfnLintTemplates(directory);
    rmSync(directory, { recursive: true, force: true });

    expect(result.files).toHaveLength(1);
    expect(result.findings, result.stderr).toEqual([]);
    expect(result.status).toBe(0);
  });

  it("lets the pull-request role assume each region's lookup role once", () => {
    expect(
      roleNamed(template, GITHUB_PULL_REQUEST_ROLE_NAME).Policies[0].PolicyDocument.Statement[0]
        .Resource,
    ).toEqual(regions.flatMap((region) => bootstrapRoles(['lookup'], { account, region })));
  });
});
