/**
 * One region per stage, as before issue 41 (item 9): production's template against main's synth
 * (logical ids and types, outputs; operations and the portal added since bring their own), plus
 * the Regions and RegionalApiBaseUrl outputs; the 1.0.0 tables' conversion steps: retain, detach,
 * import. Several regions: regions.test.ts.
 */
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { ROUTES } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STACK_OUTPUTS } from '../../infra/stages.ts';
import { KEYS_TABLE, OWNER_KEYS_INDEX, TABLES } from '../../shared/dynamodb/tables.ts';
import { logicalId, outdir, PORTAL_OUTPUTS } from '../support/petstore-app.ts';
import { context, HOME, type Resource, resourcesOf } from '../support/regions-app.ts';
import mainOneRegion from './one-region-production.json' with { type: 'json' };

/**
 * Logical-id prefixes of what an operation (or the leaked-key endpoint) added since that synth
 * brings: its function's resources (its construct id), its API method
 * (`Api<path's letters and digits><METHOD>`) and the API resources of its path that synth lacked.
 */
const ADDED_OPERATIONS = [...ROUTES, SECRET_SCANNING_ROUTE]
  .filter(({ constructId }) => !isInMain(constructId))
  .flatMap(({ constructId, method, path }) => [
    constructId,
    `Api${lettersOf(path)}${method}`,
    ...path
      .split('/')
      .map((_, end, segments) => `Api${lettersOf(segments.slice(0, end + 1).join('/'))}`)
      .filter((prefix) => prefix !== 'Api' && !isInMain(prefix)),
  ]);

/**
 * Logical-id prefixes of what the developer portal added since that synth, all new: its construct
 * (`Portal`: the user pool, the portal API and its functions, the site), aws-cdk-lib's
 * BucketDeployment function (at the stack's scope), the public web ACL's association with the
 * portal API, and the alarm of the keys table's new index.
 */
const ADDED_BY_PORTAL = [
  'Portal',
  'CustomCDKBucketDeployment',
  'ApiWebAclPortalApiAssociation',
  `Monitoring${KEYS_TABLE.constructId}${OWNER_KEYS_INDEX}ThrottlesAlarm`,
];

function isInMain(prefix: string): boolean {
  return Object.keys(mainOneRegion.resources).some((id) => id.startsWith(prefix));
}

function lettersOf(path: string): string {
  return path.replace(/[^A-Za-z0-9]/g, '');
}

/** The content hash ending a Lambda version's or an API deployment's logical id. */
const CONTENT_HASH = /((?:CurrentVersion|Deployment)[0-9A-F]{8})[0-9a-f]{32}$/;

describe('one region, as before', () => {
  /** An app of one region per stage, staging detaching its tables. */
  let oneRegion: PetstoreApp;
  /** The 1.0.0 tables' names, as CloudFormation made them. */
  const names = Object.fromEntries(
    TABLES.map((d) => [d.constructId, `petstore-prod-${d.constructId}-1A2B3C`]),
  );
  const tableNames = Object.entries(names)
    .map(([id, name]) => `${id}=${name}`)
    .join(',');

  beforeAll(() => {
    oneRegion = createPetstoreApp({
      context: context({
        'petstore:staging:tableNames': tableNames,
        'petstore:staging:tableConversion': 'detach',
      }),
      outdir: join(outdir, 'one-region'),
    });
  }, 300_000);

  it("synthesizes main's resources (logical ids and types; an operation added since brings its own) and outputs, plus the Regions and RegionalApiBaseUrl outputs", () => {
    const template = Template.fromStack(oneRegion.stacks.production).toJSON() as {
      Resources: Record<string, Resource>;
      Outputs: Record<string, unknown>;
    };
    const resources = Object.fromEntries(
      Object.entries(template.Resources)
        .filter(([id]) => ![...ADDED_OPERATIONS, ...ADDED_BY_PORTAL].some((p) => id.startsWith(p)))
        .map(([id, { Type }]) => [id.replace(CONTENT_HASH, '$1'), Type])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    expect(resources).toEqual(mainOneRegion.resources);
    expect(Object.keys(template.Outputs).sort()).toEqual(
      [
        ...mainOneRegion.outputs,
        STACK_OUTPUTS.regions,
        STACK_OUTPUTS.regionalApiBaseUrl,
        // The portal's, new since that synth.
        ...PORTAL_OUTPUTS,
      ].sort(),
    );
  });

  describe('converting 1.0.0 tables', () => {
    let importing: PetstoreApp;

    beforeAll(() => {
      importing = createPetstoreApp({
        context: context({
          'petstore:production:tableNames': tableNames,
          'petstore:production:tableConversion': 'import',
          'petstore:staging:tableConversion': 'retain',
        }),
        outdir: join(outdir, 'import'),
      });
    }, 300_000);

    it('retain: keeps every 1.0.0 table when it leaves the stack (staging)', () => {
      const tables = resourcesOf(
        Template.fromStack(importing.stacks.staging),
        'AWS::DynamoDB::Table',
      );
      expect(tables).toHaveLength(TABLES.length);
      for (const [, table] of tables) expect(table.DeletionPolicy).toBe('Retain');
    });

    it('detach: takes the tables out of the template, the functions reading them by name', () => {
      const template = Template.fromStack(oneRegion.stacks.staging);
      template.resourceCountIs('AWS::DynamoDB::Table', 0);
      template.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
      template.resourceCountIs('AWS::Pipes::Pipe', 0);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ PETS_TABLE_NAME: names.PetsTable }) },
      });
    });

    it('import: a global table per 1.0.0 table, under its logical id, with what it had, Retain, and nothing else changed', () => {
      const before = Template.fromStack(oneRegion.stacks.production);
      const after = Template.fromStack(importing.stacks.production);
      after.resourceCountIs('AWS::DynamoDB::Table', 0);
      for (const definition of TABLES) {
        const id = logicalId(oneRegion.stacks.production, definition.constructId);
        const table = before.toJSON().Resources[id].Properties;
        const global = after.toJSON().Resources[id];
        expect(global.Type).toBe('AWS::DynamoDB::GlobalTable');
        expect(global.DeletionPolicy).toBe('Retain');
        const { Replicas, ...properties } = global.Properties;
        expect(properties).toEqual({
          TableName: names[definition.constructId],
          AttributeDefinitions: table.AttributeDefinitions,
          KeySchema: table.KeySchema,
          BillingMode: 'PAY_PER_REQUEST',
          ...(table.GlobalSecondaryIndexes && {
            GlobalSecondaryIndexes: table.GlobalSecondaryIndexes,
          }),
          ...(table.TimeToLiveSpecification && {
            TimeToLiveSpecification: table.TimeToLiveSpecification,
          }),
          SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
          ...(table.StreamSpecification && {
            StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
          }),
        });
        expect(Replicas).toEqual([
          expect.objectContaining({
            Region: HOME,
            DeletionProtectionEnabled: table.DeletionProtectionEnabled,
            PointInTimeRecoverySpecification: table.PointInTimeRecoverySpecification,
            SSESpecification: { KMSMasterKeyId: table.SSESpecification.KMSMasterKeyId },
            ...(table.ResourcePolicy && { ResourcePolicy: table.ResourcePolicy }),
          }),
        ]);
      }
      // The functions still read the tables by name: the import changes no other resource.
      after.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ PETS_TABLE_NAME: names.PetsTable }) },
      });
    });
  });
});
