/**
 * A stage in several regions (issue 41, items 1, 2, 3 and 9): production in us-east-1 (home) and
 * us-west-2, staging in us-east-1 alone, synthesized once with cdk-nag's AWS Solutions checks and
 * Control Tower's rules on (a finding fails the hook), every template of the assembly through
 * cfn-lint; the regions setting. One region's template as before, and the 1.0.0 tables'
 * conversion steps: regions-one-region.test.ts.
 */
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { stageKeyArnParameter } from '../../infra/constructs/region-key-stack.ts';
import { replicatedSecretName } from '../../infra/constructs/stage-secrets.ts';
import { stageRegions } from '../../infra/deployment-context.ts';
import { functionSecrets } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STACK_OUTPUTS } from '../../infra/stages.ts';
import { globalTableName } from '../../infra/table-settings.ts';
import {
  AUDIT_TABLE,
  KEYS_TABLE,
  TABLES,
  type TableDefinition,
} from '../../shared/dynamodb/tables.ts';
import { cfnLintTemplates } from '../support/cfn-lint.ts';
import { logicalId, outdir, SECRET_SCANNING_KEY_ACTIONS } from '../support/petstore-app.ts';
import { ACCOUNT, context, HOME, OTHER, resourcesOf } from '../support/regions-app.ts';

/** The app with production in two regions, built and synthesized (checks on) once. */
let app: PetstoreApp;
let home: Template;
let regional: Template;
let keyStack: Template;

beforeAll(() => {
  app = createPetstoreApp({
    context: context({ 'petstore:production:regions': `${HOME},${OTHER}` }),
    outdir: join(outdir, 'two-regions'),
  });
  // cdk-nag and the Control Tower rules run here: a finding fails the hook.
  app.app.synth();
  home = Template.fromStack(app.stacks.production);
  regional = Template.fromStack(app.regionalStacks.production[0] as Stack);
  keyStack = Template.fromStack(app.regionKeyStacks.production[0] as Stack);
}, 300_000);

/** An IAM statement as the templates hold it. */
type Statement = { Action: unknown; Resource: unknown; Condition?: unknown };

/** The statements of each IAM policy of `template`, by the roles it is attached to (JSON). */
function statementsByRoles(template: Template): [string, Statement[]][] {
  return resourcesOf(template, 'AWS::IAM::Policy').map(([, policy]) => [
    JSON.stringify(policy.Properties.Roles),
    (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  ]);
}

/** The role of the function `id` of `stack`, as a policy's `Roles` names it (JSON). */
const rolesOf = (stack: Stack, id: string) =>
  JSON.stringify([{ Ref: logicalId(stack, `${id}/Role`) }]);

/**
 * Every `dynamodb:` statement's resources in the IAM policies of `template`, flattened, but those
 * of the policy attached to `except` (`rolesOf`).
 */
function dynamodbResources(template: Template, except?: string): unknown[] {
  return statementsByRoles(template)
    .filter(([roles]) => roles !== except)
    .flatMap(([, statements]) =>
      statements
        .filter((statement) => [statement.Action].flat().join().includes('dynamodb:'))
        .flatMap((statement) => [statement.Resource].flat()),
    );
}

describe('production in two regions', () => {
  it('has one stack per region, named after the stage and the region, the home one as before', () => {
    expect(app.stacks.production.stackName).toBe('petstore-production');
    expect(app.stacks.production.node.path).toBe('production/Petstore');
    expect(app.regionalStacks.production.map((stack) => [stack.stackName, stack.region])).toEqual([
      ['petstore-production-us-west-2', OTHER],
    ]);
    expect(app.regionalStacks.production[0]?.node.path).toBe('production/Petstore-us-west-2');
    expect(app.regionKeyStacks.production.map((stack) => stack.stackName)).toEqual([
      'petstore-production-us-west-2-key',
    ]);
    expect(app.regionalStacks.staging).toEqual([]);
  });

  it('serves the whole API in each region; the admin API, the portal and the audit pipe only at home', () => {
    for (const template of [home, regional]) {
      // At home: the public API, the admin API and the portal API.
      template.resourceCountIs('AWS::ApiGateway::RestApi', template === home ? 3 : 1);
      template.resourceCountIs('AWS::Cognito::UserPool', template === home ? 1 : 0);
      template.resourceCountIs('AWS::CloudFront::Distribution', template === home ? 1 : 0);
      expect(resourcesOf(template, 'AWS::ApiGateway::UsagePlan')).toHaveLength(3);
      expect(resourcesOf(template, 'AWS::WAFv2::WebACL')).toHaveLength(1);
      expect(resourcesOf(template, 'AWS::CodeDeploy::DeploymentGroup').length).toBeGreaterThan(0);
      expect(resourcesOf(template, 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
    }
    // The pipe reads the home replica's stream (NEW_AND_OLD_IMAGES now) with its INSERT filter.
    home.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: { 'Fn::GetAtt': [logicalId(app.stacks.production, 'AuditTable'), 'StreamArn'] },
      SourceParameters: Match.objectLike({
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'] }) }] },
      }),
    });
    home.resourceCountIs('AWS::Pipes::Pipe', 1);
    regional.resourceCountIs('AWS::Pipes::Pipe', 0);
    regional.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
    regional.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(Object.keys(regional.findOutputs(STACK_OUTPUTS.adminApiBaseUrl))).toEqual([]);
  });

  it('makes every table a global table with a replica, PITR, deletion protection and the stage key of each region', () => {
    const tables = resourcesOf(home, 'AWS::DynamoDB::GlobalTable');
    expect(tables.map(([id]) => id).sort()).toEqual(
      TABLES.map((d) => logicalId(app.stacks.production, d.constructId)).sort(),
    );
    for (const definition of TABLES) {
      home.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        Properties: Match.objectLike({
          TableName: globalTableName('production', definition),
          MultiRegionConsistency: 'EVENTUAL',
          StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
          Replicas: Match.arrayWith([
            Match.objectLike({
              Region: OTHER,
              DeletionProtectionEnabled: true,
              PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
              SSESpecification: {
                KMSMasterKeyId: `arn:aws:kms:${OTHER}:${ACCOUNT}:alias/petstore-production`,
              },
            }),
            Match.objectLike({
              Region: HOME,
              DeletionProtectionEnabled: true,
              PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
              SSESpecification: {
                KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(app.stacks.production, 'Key'), 'Arn'] },
              },
            }),
          ]),
        }),
      });
    }
    for (const [, table] of tables) expect(table.Properties.Replicas).toHaveLength(2);
  });

  it('creates the other region key, with its alias and the parameter the regional stack reads, before the home stack', () => {
    keyStack.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/petstore-production' });
    keyStack.hasResourceProperties('AWS::SSM::Parameter', {
      Name: stageKeyArnParameter('production'),
    });
    const [keys] = app.regionKeyStacks.production;
    expect(app.stacks.production.dependencies).toContain(keys);
    expect(app.regionalStacks.production[0]?.dependencies).toContain(app.stacks.production);
  });

  it('replicates every secret into the other region under its key, and the other region reads its replica', () => {
    for (const definition of functionSecrets()) {
      home.hasResourceProperties('AWS::SecretsManager::Secret', {
        Name: replicatedSecretName('production', definition),
        ReplicaRegions: [
          {
            Region: OTHER,
            KmsKeyId: `arn:aws:kms:${OTHER}:${ACCOUNT}:alias/petstore-production`,
          },
        ],
      });
      const arn = `arn:aws:secretsmanager:${OTHER}:${ACCOUNT}:secret:${replicatedSecretName('production', definition)}`;
      regional.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ [definition.arnSetting]: arn }) },
      });
    }
    regional.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it("grants each region's functions only their own region's replicas, but the leaked-key endpoint's", () => {
    const regionalStack = app.regionalStacks.production[0] as Stack;
    const scanning = rolesOf(regionalStack, SECRET_SCANNING_ROUTE.constructId);
    const regionalArns = dynamodbResources(regional, scanning);
    expect(regionalArns.length).toBeGreaterThan(0);
    for (const arn of regionalArns) {
      expect(String(arn)).toMatch(
        new RegExp(`^arn:aws:dynamodb:${OTHER}:${ACCOUNT}:table/petstore-production-`),
      );
    }
    // The home stack's grants are its global tables' own ARNs (those of the home replicas).
    const tableIds = TABLES.map((d) => logicalId(app.stacks.production, d.constructId));
    for (const arn of dynamodbResources(home)) {
      const json = JSON.stringify(arn);
      expect(json).not.toContain(OTHER);
      expect(tableIds.some((id) => json.includes(id))).toBe(true);
    }
  });

  it("grants the other region's leaked-key endpoint its reads and the key service's writes in the home region, and the home key by its alias", () => {
    const regionalStack = app.regionalStacks.production[0] as Stack;
    const roles = rolesOf(regionalStack, SECRET_SCANNING_ROUTE.constructId);
    const [, statements = []] = statementsByRoles(regional).find(([each]) => each === roles) ?? [];
    const table = (definition: TableDefinition) =>
      `arn:aws:dynamodb:${HOME}:${ACCOUNT}:table/${globalTableName('production', definition)}`;

    expect(statements).toEqual(
      expect.arrayContaining([
        { Action: SECRET_SCANNING_KEY_ACTIONS, Effect: 'Allow', Resource: table(KEYS_TABLE) },
        { Action: 'dynamodb:PutItem', Effect: 'Allow', Resource: table(AUDIT_TABLE) },
        {
          Action: 'kms:Decrypt',
          Effect: 'Allow',
          Resource: `arn:aws:kms:${HOME}:${ACCOUNT}:key/*`,
          Condition: {
            'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/petstore-production' },
          },
        },
        {
          Action: 'events:PutEvents',
          Effect: 'Allow',
          Resource: `arn:aws:events:${OTHER}:${ACCOUNT}:event-bus/default`,
        },
      ]),
    );
    const dynamodb = statements.filter((each) => String(each.Action).includes('dynamodb:'));
    expect(dynamodb.map((each) => each.Resource).join()).not.toContain(OTHER);
  });

  it('gives every function of every region the stage regions, home first, and every stack the Regions output', () => {
    for (const template of [home, regional]) {
      for (const [id, fn] of resourcesOf(template, 'AWS::Lambda::Function')) {
        // aws-cdk-lib's BucketDeployment function, which uploads the portal's page, is not ours.
        if (id.startsWith('CustomCDKBucketDeployment')) continue;
        expect(
          (fn.Properties.Environment as { Variables: Record<string, string> }).Variables
            .PETSTORE_REGIONS,
        ).toBe(`${HOME},${OTHER}`);
      }
      template.hasOutput(STACK_OUTPUTS.regions, { Value: `${HOME},${OTHER}` });
    }
  });

  it('keeps staging in one region, with its 1.0.0 tables', () => {
    const staging = Template.fromStack(app.stacks.staging);
    staging.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
    staging.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
    staging.hasOutput(STACK_OUTPUTS.regions, { Value: HOME });
  });

  it('adds an account stack for the other region, the GitHub roles staying in the first', () => {
    expect(app.regionalAccountStacks.map((stack) => [stack.stackName, stack.region])).toEqual([
      ['petstore-account-production-us-west-2', OTHER],
    ]);
    Template.fromStack(app.regionalAccountStacks[0] as Stack).resourceCountIs(
      'AWS::ApiGateway::Account',
      1,
    );
    expect(app.regionalAccountStacks[0]?.github).toBeUndefined();
  });

  it('passes cfn-lint on every template of the assembly', () => {
    const { files, findings, status, stderr } = cfnLintTemplates(join(outdir, 'two-regions'));
    // account stacks, staging, production's home, key and regional stacks, each stage's portal
    // edge stack (us-east-1)
    expect(files).toHaveLength(8);
    expect({ findings, stderr }).toEqual({ findings: [], stderr: '' });
    expect(status).toBe(0);
  }, 120_000);
});

describe('the regions setting', () => {
  const regionsOf = (extra: Record<string, string>) =>
    stageRegions(createBareScope(extra), 'production');

  it('is the list, home first; unset, the one region', () => {
    expect(regionsOf({ 'petstore:production:regions': 'us-east-1, eu-west-1' })).toEqual([
      'us-east-1',
      'eu-west-1',
    ]);
    expect(regionsOf({ 'petstore:production:region': 'eu-west-1' })).toEqual(['eu-west-1']);
    expect(
      regionsOf({
        'petstore:production:region': 'us-east-1',
        'petstore:production:regions': 'us-east-1,us-west-2',
      }),
    ).toEqual(['us-east-1', 'us-west-2']);
  });

  it('refuses another home region in :region, a region twice, or no region name', () => {
    expect(() =>
      regionsOf({
        'petstore:production:region': 'eu-west-1',
        'petstore:production:regions': 'us-east-1,us-west-2',
      }),
    ).toThrow(/petstore:production:region \(eu-west-1\) and petstore:production:regions/);
    expect(() => regionsOf({ 'petstore:production:regions': 'us-east-1,us-east-1' })).toThrow(
      /names a region twice/,
    );
    expect(() => regionsOf({ 'petstore:production:regions': 'us-east-1;oops' })).toThrow(
      /must be AWS region names separated by commas/,
    );
  });
});

/** A construct whose context is `extra` alone (no app to build). */
function createBareScope(extra: Record<string, string>) {
  return { node: { tryGetContext: (key: string) => extra[key] } } as never;
}
