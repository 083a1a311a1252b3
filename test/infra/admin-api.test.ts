/**
 * The admin API and the audit table in each stage's template (issue 39, items 1, 4 and 7): every
 * admin method AWS_IAM-authorized; the resource policy admits only the stage's account (and the
 * listed roles), evaluated for sample callers; the admin functions hold exactly their rows'
 * grants; no grant anywhere allows updating or deleting an audit entry, and the audit table's own
 * policy denies it to every principal; the table's PITR, deletion protection, Retain and TTL.
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { ADMIN_ROUTES, adminRouteOf } from '../../infra/admin-routes.ts';
import { AdminApi } from '../../infra/constructs/admin-api.ts';
import { stageOptions } from '../../infra/deployment-config.ts';
import { STACK_OUTPUTS, STAGES } from '../../infra/stages.ts';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import { AUDIT_DAY_INDEX, AUDIT_TABLE, KEY_HISTORY_INDEX } from '../../shared/dynamodb/tables.ts';
import { grantedPairs, rowPairs } from '../support/function-grants.ts';
import {
  ADMIN_FUNCTION_IDS,
  FUNCTION_IDS,
  logicalId,
  outdir,
  petstore,
  stageOf,
  synthesizeStages,
} from '../support/petstore-app.ts';
import { policyAllows, resolve, SAMPLE_ENVIRONMENT } from '../support/resource-policy.ts';

const ACCOUNT = SAMPLE_ENVIRONMENT['AWS::AccountId'] as string;

/** Changes to an item that no principal may make on the audit table. */
const CHANGES = [
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

type Statement = Record<string, unknown>;

/** IAM's `*` and `?` wildcards, case-insensitive (actions). */
function like(pattern: string, value: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${source.replace(/\?/g, '.')}$`, 'i').test(value);
}

/** A request to invoke an admin method by a principal of `account` with the ARN `arn`. */
function invoke(account: string, arn: string) {
  return {
    service: `arn:aws:iam::${account}:root`,
    action: 'execute-api:Invoke',
    resource: `execute-api:/${ADMIN_API_STAGE_NAME}/PUT/keys/key_0123456789abcdef/plan`,
    context: { 'aws:PrincipalAccount': account, 'aws:PrincipalArn': arn },
  };
}

/** The admin RestApi's resource policy statements in `template`. */
function adminPolicy(template: Template, restApiId: string): Statement[] {
  const { Properties } = template.toJSON().Resources[restApiId];
  return Properties.Policy.Statement;
}

/** Every Allow statement of every IAM policy (inline, attached or a role's own) in `template`. */
function allowStatements(template: Template): Statement[] {
  const resources = Object.values(template.toJSON().Resources) as Statement[];
  return resources.flatMap((resource) => {
    const properties = (resource.Properties ?? {}) as Record<string, unknown>;
    const documents = [
      ...(resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy'
        ? [properties.PolicyDocument]
        : []),
      ...(resource.Type === 'AWS::IAM::Role'
        ? ((properties.Policies ?? []) as Statement[]).map((policy) => policy.PolicyDocument)
        : []),
    ] as { Statement: Statement[] }[];
    return documents.flatMap((document) =>
      document.Statement.filter((statement) => statement.Effect === 'Allow'),
    );
  });
}

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template, arnOf } = stageOf(stage);
  const adminApiId = () => logicalId(stack(), 'AdminApi');

  describe('admin API', () => {
    it('is a REGIONAL RestApi of its own with the stage admin, apart from the public API', () => {
      const resources = template().toJSON().Resources;
      expect(resources[adminApiId()].Properties.EndpointConfiguration).toEqual({
        Types: ['REGIONAL'],
      });
      expect(adminApiId()).not.toBe(logicalId(stack(), 'Api'));
      template().hasResourceProperties('AWS::ApiGateway::Stage', {
        RestApiId: { Ref: adminApiId() },
        StageName: ADMIN_API_STAGE_NAME,
      });
      expect(template().toJSON().Outputs[STACK_OUTPUTS.adminApiBaseUrl]).toBeDefined();
    });

    it('serves each admin route with one method, and every method requires AWS_IAM', () => {
      const methods = Object.values(
        template().findResources('AWS::ApiGateway::Method', {
          Properties: { RestApiId: { Ref: adminApiId() } },
        }),
      ) as Statement[];
      expect(
        methods.map((method) => (method.Properties as Statement).OperationName).sort(),
      ).toEqual(ADMIN_ROUTES.map((route) => route.operationId).sort());
      for (const method of methods) {
        expect((method.Properties as Statement).AuthorizationType).toBe('AWS_IAM');
      }
    });

    it("admits through its resource policy principals of the stage's account only", () => {
      const statements = adminPolicy(template(), adminApiId());
      expect(
        policyAllows(statements, invoke(ACCOUNT, `arn:aws:iam::${ACCOUNT}:role/billing`)),
      ).toBe(true);
      expect(
        policyAllows(statements, invoke('222222222222', 'arn:aws:iam::222222222222:role/billing')),
      ).toBe(false);
      // A principal of another account claiming this account's root in its ARN is still refused.
      expect(
        policyAllows(statements, {
          ...invoke('222222222222', `arn:aws:iam::${ACCOUNT}:role/billing`),
          service: `arn:aws:iam::${ACCOUNT}:root`,
        }),
      ).toBe(false);
    });

    it('grants each admin function exactly the DynamoDB and API Gateway calls of its row', () => {
      for (const route of ADMIN_ROUTES) {
        const role = logicalId(stack(), `${route.constructId}/Role`);
        expect(grantedPairs(template(), role)).toEqual(rowPairs(route, arnOf));
      }
    });
  });

  describe('audit table', () => {
    it('keeps point-in-time recovery, deletion protection and Retain in every stage', () => {
      const resource = template().toJSON().Resources[logicalId(stack(), AUDIT_TABLE.constructId)];
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
      expect(resource.Properties).toMatchObject({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        KeySchema: [{ AttributeName: 'entryId', KeyType: 'HASH' }],
      });
      const indexes = resource.Properties.GlobalSecondaryIndexes.map(
        (index: Statement) => index.IndexName,
      );
      expect(indexes).toEqual([KEY_HISTORY_INDEX, AUDIT_DAY_INDEX]);
    });

    it('gives the admin functions the retention of the stage (400 days by default)', () => {
      for (const id of ADMIN_FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.Environment.Variables.AUDIT_RETENTION_DAYS).toBe('400');
      }
    });

    it('denies every principal any update or delete of an entry in its own resource policy', () => {
      const resource = template().toJSON().Resources[logicalId(stack(), AUDIT_TABLE.constructId)];
      const statements = resource.Properties.ResourcePolicy.PolicyDocument.Statement;
      for (const action of CHANGES) {
        const request = {
          service: `arn:aws:iam::${ACCOUNT}:root`,
          action,
          resource: 'arn:aws:dynamodb:us-east-1:111111111111:table/audit',
          context: {},
        };
        // An Allow for the account added beside it would not let the change through.
        const allowAll = { Effect: 'Allow', Principal: { AWS: '*' }, Action: '*', Resource: '*' };
        expect(policyAllows([...statements, allowAll], request)).toBe(false);
      }
    });

    it('is granted to no principal for UpdateItem, DeleteItem or another change of an item', () => {
      const auditArn = resolve(arnOf(AUDIT_TABLE.constructId));
      const templates = [template(), petstore.accountStacks[stage].template];
      for (const candidate of templates) {
        for (const statement of allowStatements(candidate)) {
          const resources = [statement.Resource].flat().map((resource) => {
            try {
              return resolve(resource);
            } catch {
              return '';
            }
          });
          const onAudit = resources.some(
            (resource) => like(resource, auditArn) || like(resource, `${auditArn}/index/x`),
          );
          const changes = [statement.Action]
            .flat()
            .some((action) => CHANGES.some((change) => like(`${action}`, change)));
          expect(onAudit && changes, JSON.stringify(statement)).toBe(false);
        }
      }
    });

    it('is written only by the admin functions, and the public functions call no API Gateway API', () => {
      const auditArn = resolve(arnOf(AUDIT_TABLE.constructId));
      const policies = Object.values(template().findResources('AWS::IAM::Policy'));
      for (const id of FUNCTION_IDS) {
        const role = { Ref: logicalId(stack(), `${id}/Role`) };
        const policy = policies.find(
          (p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([role]),
        );
        const text = JSON.stringify(policy?.Properties.PolicyDocument);
        expect(text).not.toContain(auditArn.replace(/^getatt:|\.Arn$/g, ''));
        expect(text).not.toContain('apigateway:');
      }
    });
  });
});

describe('AdminApi with role ARNs', () => {
  /** The admin API's policy statements of a stack for account 111111111111 given `roleArns`. */
  function statementsFor(roleArns: readonly string[]): Statement[] {
    const stack = new Stack(new App({ outdir }), 'Admin', {
      env: { account: ACCOUNT, region: 'us-east-1' },
    });
    const logs = {
      encryptionKey: new Key(stack, 'Key'),
      retentionDays: 365,
      removalPolicy: RemovalPolicy.DESTROY,
    };
    const api = new AdminApi(stack, 'AdminApi', { logs, roleArns });
    const handler = new LambdaFunction(stack, 'Handler', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({});'),
    });
    api.addOperation(adminRouteOf('getKey'), handler);
    const template = Template.fromStack(stack);
    return adminPolicy(template, stack.getLogicalId(api.restApi.node.defaultChild as never));
  }

  it('admits only the listed roles of the account', () => {
    const billing = `arn:aws:iam::${ACCOUNT}:role/billing`;
    const statements = statementsFor([billing]);
    expect(policyAllows(statements, invoke(ACCOUNT, billing))).toBe(true);
    expect(policyAllows(statements, invoke(ACCOUNT, `arn:aws:iam::${ACCOUNT}:role/other`))).toBe(
      false,
    );
    expect(policyAllows(statements, invoke(ACCOUNT, `arn:aws:iam::${ACCOUNT}:user/ops`))).toBe(
      false,
    );
  });

  it('refuses an ARN that is no IAM role, or a role of another account', () => {
    expect(() => statementsFor(['arn:aws:iam::111111111111:user/ops'])).toThrow(
      /must be IAM role ARNs/,
    );
    expect(() => statementsFor(['arn:aws:iam::222222222222:role/billing'])).toThrow(
      /not in the stage's account 111111111111/,
    );
  });

  it('comes from the stage settings adminRoleArns and auditRetentionDays, checked', () => {
    const key = (option: string) => `petstore:staging:${option}`;
    const options = (context: Record<string, unknown>) =>
      stageOptions(new App({ context: { ...cdkJson.context, ...context } }), 'staging', {});
    expect(
      options({
        [key('adminRoleArns')]: `arn:aws:iam::${ACCOUNT}:role/a, arn:aws:iam::${ACCOUNT}:role/b`,
        [key('auditRetentionDays')]: '30',
      }),
    ).toMatchObject({
      adminRoleArns: [`arn:aws:iam::${ACCOUNT}:role/a`, `arn:aws:iam::${ACCOUNT}:role/b`],
      auditRetentionDays: 30,
    });
    expect(() => options({ [key('auditRetentionDays')]: '1.5' })).toThrow(
      /auditRetentionDays must be a whole number/,
    );
  });
});
