/**
 * The admin functions' API Gateway grants in a stage of two regions (issue 41, item 5), in the
 * template: createKey's function built as the stack builds it (`ServiceFunction` with the
 * stage's regions) names each of its row's API Gateway calls in both regions and no other
 * region, looks usage plans up by name (`GET /usageplans`) only beyond the home region, and
 * leaves cdk-nag nothing unanswered. With one region its template is as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { adminRouteOf } from '../../infra/admin-routes.ts';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { AUDIT_TABLE, KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { resolve } from '../support/resource-policy.ts';

const outdir = mkdtempSync(join(tmpdir(), 'petstore-admin-regions-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The createKey function in a stack of us-east-1, reaching API Gateway in `regions`. */
function createKeyFunction(regions?: string[]) {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Admin', { env: { account: '111111111111', region: 'us-east-1' } });
  const tables = new Map(
    [KEYS_TABLE, AUDIT_TABLE].map((table) => [
      table,
      Table.fromTableName(stack, table.constructId, table.localName),
    ]),
  );
  new ServiceFunction(stack, 'AdminCreateKeyFunction', {
    definition: adminRouteOf('createKey'),
    tables,
    secrets: new Map(),
    environment: {},
    logs: {
      encryptionKey: new Key(stack, 'StageKey', { enableKeyRotation: true }),
      retentionDays: 365,
      removalPolicy: RemovalPolicy.DESTROY,
    },
    ...(regions && { apiGatewayRegions: regions }),
  });
  return { app, template: Template.fromStack(stack) };
}

/** The template's API Gateway grants as `action resource` pairs, sorted. */
function apiGatewayGrants(template: Template): string[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
    .flatMap(({ Action, Resource }) =>
      [Action].flat().flatMap((action) => [Resource].flat().map((r) => `${action} ${resolve(r)}`)),
    )
    .filter((pair) => pair.startsWith('apigateway:'))
    .sort();
}

describe('createKey with two regions', () => {
  const { app, template } = createKeyFunction(['us-east-1', 'us-west-2']);

  it('names each call of its row in both regions, and the look-up by name beyond home only', () => {
    const paths = (region: string) =>
      ['/apikeys', '/usageplans', '/usageplans/*/keys'].map(
        (path) => `apigateway:POST arn:aws:apigateway:${region}::${path}`,
      );
    const deletes = (region: string) =>
      ['/apikeys/*', '/usageplans/*'].map(
        (path) => `apigateway:DELETE arn:aws:apigateway:${region}::${path}`,
      );
    expect(apiGatewayGrants(template)).toEqual(
      [
        ...['us-east-1', 'us-west-2'].flatMap((region) => [...paths(region), ...deletes(region)]),
        'apigateway:GET arn:aws:apigateway:us-west-2::/usageplans',
      ].sort(),
    );
  });

  it('leaves no cdk-nag finding unanswered', () => {
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });
});

describe('createKey with one region', () => {
  it('names its own region alone, with no look-up', () => {
    const grants = apiGatewayGrants(createKeyFunction().template);

    expect(grants.every((pair) => pair.includes(':us-east-1::'))).toBe(true);
    expect(grants.filter((pair) => pair.startsWith('apigateway:GET'))).toEqual([]);
  });
});
