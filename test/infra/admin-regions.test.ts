/**
 * The admin API's functions in a stage of two regions (issue 41, item 5), in the template that
 * `addAdmin` builds for the home stack (the public API as the stack makes it, with one operation):
 * each function's API Gateway grants name its row's calls in both regions and no other region,
 * createKey's look-up of usage plans by name (`GET /usageplans`) only beyond the home region;
 * every function gets each region's stack name (`PETSTORE_REGION_STACKS`); cdk-nag has nothing
 * unanswered. With one region, grants in the stack's own region alone and no such setting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../infra/admin-routes.ts';
import { addAdmin } from '../../infra/constructs/admin-api.ts';
import { PetstoreApi } from '../../infra/constructs/petstore-api.ts';
import { ROUTES } from '../../infra/routes.ts';
import { regionalStackName, stackName } from '../../infra/stages.ts';
import { AUDIT_TABLE, COUNTERS_TABLE, KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { resolve } from '../support/resource-policy.ts';

const outdir = mkdtempSync(join(tmpdir(), 'petstore-admin-regions-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const REGIONS = ['us-east-1', 'us-west-2'];
const [getPetRoute] = ROUTES as [(typeof ROUTES)[number]];

/** Production's home stack in us-east-1 with its admin API, for the stage's `regions`. */
function homeStack(regions?: string[]) {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Home', {
    stackName: stackName('production'),
    env: { account: '111111111111', region: 'us-east-1' },
  });
  const logs = {
    encryptionKey: new Key(stack, 'StageKey', { enableKeyRotation: true }),
    retentionDays: 365,
    removalPolicy: RemovalPolicy.DESTROY,
  };
  // A stand-in: the authorizer is not what this file checks (cdk-nag's findings are filtered).
  const authorizerFunction = new LambdaFunction(stack, 'Authorizer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({});'),
  });
  const tables = new Map(
    [KEYS_TABLE, AUDIT_TABLE, COUNTERS_TABLE].map((table) => [
      table,
      Table.fromTableName(stack, table.constructId, table.localName),
    ]),
  );
  const publicApi = new PetstoreApi(stack, 'Api', { authorizerFunction, logs });
  // One operation, whose method the authorizer needs to be attached to.
  publicApi.addOperation(getPetRoute, authorizerFunction);
  addAdmin(stack, {
    publicApi,
    retentionDays: 400,
    tables,
    secrets: new Map(),
    environment: {},
    logs,
    ...(regions && { regions: { stage: 'production', names: regions } }),
  });
  return { app, template: Template.fromStack(stack) };
}

/** Each admin function's API Gateway grants as `action resource` pairs, by construct id. */
function apiGatewayGrants(template: Template): Map<string, string[]> {
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  return new Map(
    ADMIN_ROUTES.map(({ constructId }) => {
      const own = policies.filter((policy) =>
        JSON.stringify(policy.Properties.Roles).includes(`${constructId}Role`),
      );
      const pairs = own
        .flatMap(
          (policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[],
        )
        .flatMap(({ Action, Resource }) =>
          [Action]
            .flat()
            .flatMap((action) => [Resource].flat().map((r) => `${action} ${resolve(r)}`)),
        )
        .filter((pair) => pair.startsWith('apigateway:'));
      return [constructId, pairs.sort()];
    }),
  );
}

/** The admin functions of `template`: those with the admin settings (`PETSTORE_STACK_NAME`). */
function adminFunctions(template: Template) {
  return Object.values(template.findResources('AWS::Lambda::Function')).filter(
    (fn) => fn.Properties.Environment?.Variables?.PETSTORE_STACK_NAME,
  );
}

/** The pairs of a route's row in `regions` (its accesses `otherRegionsOnly` beyond the first). */
function rowPairs(route: (typeof ADMIN_ROUTES)[number], regions: readonly string[]): string[] {
  return (route.apiGatewayAccess ?? [])
    .flatMap(({ method, paths, otherRegionsOnly }) =>
      (otherRegionsOnly ? regions.slice(1) : regions).flatMap((region) =>
        paths.map((path) => `apigateway:${method} arn:aws:apigateway:${region}::${path}`),
      ),
    )
    .sort();
}

describe('the admin functions of a stage of two regions', () => {
  const { app, template } = homeStack(REGIONS);

  it("grant each row's API Gateway calls in both regions and in no other", () => {
    const grants = apiGatewayGrants(template);
    for (const route of ADMIN_ROUTES) {
      expect(grants.get(route.constructId)).toEqual(rowPairs(route, REGIONS));
    }
    expect(grants.get('AdminCreateKeyFunction')).toContain(
      'apigateway:GET arn:aws:apigateway:us-west-2::/usageplans',
    );
    expect(grants.get('AdminCreateKeyFunction')).not.toContain(
      'apigateway:GET arn:aws:apigateway:us-east-1::/usageplans',
    );
  });

  it("get each region's stack name, the home stack first", () => {
    const settings = adminFunctions(template).map(
      (fn) => fn.Properties.Environment?.Variables?.PETSTORE_REGION_STACKS,
    );
    expect(settings).toEqual(
      ADMIN_ROUTES.map(
        () => `${stackName('production')},${regionalStackName('production', 'us-west-2')}`,
      ),
    );
  });

  it('leave no cdk-nag finding unanswered', () => {
    const { violations } = new AwsSolutionsChecks().validateScope(app);
    expect(violations.filter((violation) => /Admin/.test(JSON.stringify(violation)))).toEqual([]);
  });
});

describe('the admin functions of a stage of one region', () => {
  it('grant their calls in the stack region alone, with no look-up and no region stacks', () => {
    const { template } = homeStack(['us-east-1']);
    const grants = apiGatewayGrants(template);
    for (const route of ADMIN_ROUTES) {
      expect(grants.get(route.constructId)).toEqual(rowPairs(route, ['us-east-1']));
    }
    const functions = adminFunctions(template);
    expect(functions).toHaveLength(ADMIN_ROUTES.length);
    expect(
      functions.filter((fn) => fn.Properties.Environment?.Variables?.PETSTORE_REGION_STACKS),
    ).toEqual([]);
  });
});
