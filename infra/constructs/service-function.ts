/**
 * One Lambda function of the service, as every function of the stack is built: bundled by the
 * local esbuild, its own log group and a role holding exactly its DynamoDB calls.
 */

import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { TableDefinition } from '../../shared/dynamodb/tables.ts';
import type { SecretDefinition } from '../../shared/secret-definitions.ts';
import { SECRET_READ_BOUNDS } from '../../shared/secrets.ts';
import { apiGatewayGrants } from '../admin-routes.ts';
import { REPOSITORY_ROOT } from '../repository.ts';
import { FUNCTION_TIMEOUT_SECONDS, type FunctionDefinition } from '../routes.ts';
import { alarmOnSum } from './alarms.ts';
import { type StageLogs, stageLogGroup } from './stage-key.ts';

/** Entries in the route table are relative to the repository root, whatever the cwd. */

/**
 * Credential providers of the AWS SDK's default chain that a Lambda function never reaches: the
 * chain tries the environment first, and Lambda always sets `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` (and never `AWS_PROFILE`, which would skip it).
 * The chain loads the others with a dynamic `import()`, so leaving them out of the bundle changes
 * nothing that runs and saves about 90 KiB (STS, SSO and sign-in clients among them).
 */
export const UNREACHED_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@smithy/credential-provider-imds',
] as const;

/**
 * esbuild settings of every function: one minified ESM file per function (`index.mjs`) for Node.js
 * 24 with its source map, the AWS SDK bundled (so the code runs against the SDK version it was
 * tested with, not the runtime's) but for {@link UNREACHED_CREDENTIAL_PROVIDERS}, built by the
 * local esbuild, never in Docker.
 */
export const BUNDLING: BundlingOptions = {
  // The functions' runtime, nodejs24.x (NodejsFunction would derive the same from it): named here
  // so that the cold-start bench builds what the stack builds.
  target: 'node24',
  format: OutputFormat.ESM,
  // Bundled CommonJS dependencies call require(), which an ES module does not have.
  banner:
    "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  // The map keeps the mappings (all a stack trace needs to name file and line) but not the
  // sources themselves: 0.6 MiB instead of 2.0 MiB per function to upload and load.
  sourcesContent: false,
  externalModules: [...UNREACHED_CREDENTIAL_PROVIDERS],
  forceDockerBundling: false,
};

/** Props of {@link ServiceFunction}. */
export interface ServiceFunctionProps {
  /** The function's handler file and DynamoDB calls (a row of the route table, or the authorizer). */
  readonly definition: FunctionDefinition;

  /** The stack's tables; every table of `definition.tableAccess` must be among them. */
  readonly tables: ReadonlyMap<TableDefinition, ITable>;

  /** The stack's secrets; every secret of `definition.secrets` must be among them. */
  readonly secrets: ReadonlyMap<SecretDefinition, ISecret>;

  /** Environment variables besides the Powertools settings, e.g. the tables' names. */
  readonly environment: Readonly<Record<string, string>>;

  /**
   * How the function's log group keeps its events. Its key also encrypts the tables, so a role
   * that calls a table may decrypt with it, as DynamoDB asks of a caller.
   */
  readonly logs: StageLogs;

  /**
   * Run with `NODE_OPTIONS=--enable-source-maps`: stack traces point into the TypeScript sources,
   * and each cold start parses the source map (see docs/measurements.md).
   *
   * @default true
   */
  readonly sourceMaps?: boolean;

  /**
   * The regions whose API Gateway the function's `apiGatewayAccess` reaches: the stage's, the
   * home region first (`apiGatewayGrants`).
   *
   * @default - the stack's region alone
   */
  readonly apiGatewayRegions?: readonly string[];

  /**
   * The stage's home region and its key's alias, in another region's stack: the calls of
   * `definition.tableAccess` made `inHomeRegion` are granted on the home region's tables, and
   * kms:Decrypt on the key of that alias there.
   *
   * @default - the stack is the home region's: every call is granted in its region
   */
  readonly homeRegion?: { readonly region: string; readonly keyAlias: string };
}

/**
 * The AWS Parameters and Secrets Lambda Extension (a layer) through which a function reads its
 * secrets over HTTP on localhost (shared/secrets.ts), bundling no Secrets Manager client.
 * Secrets Manager gets `SECRET_READ_BOUNDS.secretsManagerTimeoutMs` per read; the extension logs
 * warnings only.
 */
function secretsReader(): ParamsAndSecretsLayerVersion {
  return ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
    secretsManagerTimeout: Duration.millis(SECRET_READ_BOUNDS.secretsManagerTimeoutMs),
    logLevel: ParamsAndSecretsLogLevel.WARN,
  });
}

/**
 * A NodejsFunction (Node.js 24, arm64, ESM, 256 MB, its definition's timeout or
 * `FUNCTION_TIMEOUT_SECONDS`, X-Ray active tracing) with its own log group (the stage's key and
 * retention) and a role that may write there, decrypt with the stage's key (as DynamoDB asks of a
 * caller of a table), send traces, make exactly the DynamoDB calls of `definition.tableAccess`
 * (those `inHomeRegion` on the home region's tables, from another region) and read exactly the
 * secrets of `definition.secrets` (no managed policy, no wildcard on data), the API Gateway calls
 * of `definition.apiGatewayAccess` (the admin functions' API keys and usage plans), PutEvents on
 * its region's default bus when it `publishesEvents`, and an alarm on its throttles. A function
 * with secrets gets each one's ARN in its `arnSetting` and the extension that reads them
 * ({@link secretsReader}).
 * Its `currentVersion`, if used, is retained when a deploy publishes the next one.
 *
 * The function is this construct's default child (`Default`), so its logical id is the one a bare
 * NodejsFunction of the same id had at the stack's scope.
 *
 * @throws Error when `definition.tableAccess` names a table that `tables` lacks, or
 *   `definition.secrets` a secret that `secrets` lacks.
 */
export class ServiceFunction extends Construct {
  /** The Lambda function. */
  readonly function: NodejsFunction;

  /** Fires on the first throttled invocation in five minutes. */
  readonly throttlesAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { definition, tables, logs } = props;
    const secrets = (definition.secrets ?? []).map((secretDefinition) => {
      const secret = props.secrets.get(secretDefinition);
      if (!secret) {
        throw new Error(
          `${definition.constructId} reads secret ${secretDefinition.constructId}; secrets must hold every secret it reads`,
        );
      }
      return { definition: secretDefinition, secret };
    });
    const logGroup = stageLogGroup(this, 'Logs', logs);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    const stack = Stack.of(this);
    const { homeRegion } = props;
    for (const { table: tableDefinition, actions, index, inHomeRegion } of definition.tableAccess) {
      const table = tables.get(tableDefinition);
      if (!table) {
        throw new Error(
          `${definition.constructId} calls table ${tableDefinition.constructId}; tables must hold every table of its tableAccess`,
        );
      }
      const arn =
        inHomeRegion && homeRegion
          ? stack.formatArn({
              service: 'dynamodb',
              region: homeRegion.region,
              resource: 'table',
              resourceName: table.tableName,
            })
          : table.tableArn;
      role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: [...actions],
          resources: index ? [arn, `${arn}/index/${index}`] : [arn],
        }),
      );
    }

    // DynamoDB checks each caller's access to the table's key with kms:Decrypt (then caches the
    // table key it decrypted); it needs no more of the caller, reading or writing.
    if (definition.tableAccess.length > 0) logs.encryptionKey.grantDecrypt(role);
    const { partition, region, account } = stack;
    // cdk-nag names a resource as synthesized: pseudo parameters, or the stage's own values.
    const named = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);
    if (homeRegion && definition.tableAccess.some((access) => access.inHomeRegion)) {
      const keys = (p: string, a: string) => `arn:${p}:kms:${homeRegion.region}:${a}:key/*`;
      role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [keys(partition, account)],
          conditions: {
            'ForAnyValue:StringEquals': { 'kms:ResourceAliases': homeRegion.keyAlias },
          },
        }),
      );
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${keys(named(partition, '<AWS::Partition>'), named(account, '<AWS::AccountId>'))}]`,
        reason: `DynamoDB asks kms:Decrypt on the home region's tables' key, which this region's stack knows by its alias only: the statement holds the home region's keys of that alias (${homeRegion.keyAlias}).`,
      });
    }

    const access = definition.apiGatewayAccess ?? [];
    const regions = props.apiGatewayRegions ?? [region];
    for (const { action, resources } of apiGatewayGrants(access, { partition, regions })) {
      role.addToPrincipalPolicy(
        new PolicyStatement({ actions: [action], resources: [...resources] }),
      );
    }
    if (definition.publishesEvents) {
      const bus = stack.formatArn({
        service: 'events',
        resource: 'event-bus',
        resourceName: 'default',
      });
      role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['events:PutEvents'], resources: [bus] }),
      );
    }
    const synthesized = apiGatewayGrants(access, {
      partition: named(partition, '<AWS::Partition>'),
      regions: regions.map((each) => named(each, '<AWS::Region>')),
    });
    const resources = new Set(synthesized.flatMap(({ resources }) => resources));
    for (const resource of resources) {
      if (!resource.includes('*')) continue;
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${resource}]`,
        reason:
          'An admin function changes API keys and usage plans whose ids exist only once made (API Gateway has no tag condition for them); each statement names one resource type and one HTTP method.',
      });
    }

    this.function = new NodejsFunction(this, 'Default', {
      entry: join(REPOSITORY_ROOT, definition.entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(definition.timeoutSeconds ?? FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup,
      projectRoot: REPOSITORY_ROOT,
      depsLockFilePath: join(REPOSITORY_ROOT, 'package-lock.json'),
      bundling: BUNDLING,
      tracing: Tracing.ACTIVE,
      // A deploy must not delete the version an alias may have to be moved back to.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      paramsAndSecrets: secrets.length > 0 ? secretsReader() : undefined,
      environment: {
        ...props.environment,
        ...Object.fromEntries(
          secrets.map((read) => [read.definition.arnSetting, read.secret.secretArn]),
        ),
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...((props.sourceMaps ?? true) && { NODE_OPTIONS: '--enable-source-maps' }),
      },
    });
    for (const { secret } of secrets) secret.grantRead(this.function);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so AWS documents Resource "*" for them; every other statement names its log group or table.',
    });
    this.throttlesAlarm = alarmOnSum(
      this,
      'Throttles',
      this.function.metricThrottles(),
      `${definition.constructId} throttles`,
    );
  }
}
