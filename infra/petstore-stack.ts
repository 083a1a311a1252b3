/**
 * The stack of one deployment stage: the tables at its own scope, the authorizer's function, one
 * {@link OperationFunction} per route and the {@link PetstoreApi}, built from the shared tables.
 */
import { Aws, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  AUDIT_TABLE,
  COUNTERS_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
  type TableDefinition,
} from '../shared/dynamodb/tables.ts';
import { SERVICE_NAME } from '../shared/logger.ts';
import { METRICS_NAMESPACE, metricDimensions } from '../shared/metrics.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../shared/rate-limit/rate-limiter.ts';
import type { SecretDefinition } from '../shared/secret-definitions.ts';
import { type AdminApi, addAdmin } from './constructs/admin-api.ts';
import type { ApiDomainOptions } from './constructs/api-domain.ts';
import { AuditEvents } from './constructs/audit-events.ts';
import { validRetention } from './constructs/audit-table.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { OperationFunction, validBanPolicy } from './constructs/operation-function.ts';
import { PetstoreApi } from './constructs/petstore-api.ts';
import { Portal, type PortalOptions } from './constructs/portal.ts';
import { stageKeyArnReference } from './constructs/region-key-stack.ts';
import { addSecretScanning } from './constructs/secret-scanning-endpoint.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { StageKey, type StageLogs, stageKeyAlias } from './constructs/stage-key.ts';
import { createStageSecrets } from './constructs/stage-secrets.ts';
import { createStageTables } from './constructs/stage-tables.ts';
import { AUTHORIZER, ROUTES } from './routes.ts';
import {
  isStageName,
  regionalStackName,
  STACK_OUTPUTS,
  STAGE_SETTINGS,
  STAGES,
  type StageName,
  type StageSettings,
  stackName,
} from './stages.ts';
import type { StageTableSettings } from './table-settings.ts';

/**
 * Props of {@link PetstoreStack}. Its CloudFormation name is `stackName(stage)` in the home region,
 * `regionalStackName(stage, region)` in another (`env.region`).
 */
export interface PetstoreStackProps extends Omit<StackProps, 'stackName'> {
  /**
   * The deployment stage the stack serves. In production the tables and logs outlive the stack
   * (RETAIN) and the tables are deletion-protected; in staging they go with it (DESTROY).
   */
  readonly stage: StageName;

  /**
   * When the operations' rate limiter bans a key that keeps sending after its 429s; passed to each
   * operation function as `RATE_LIMIT_BAN_THRESHOLD` and `RATE_LIMIT_BAN_SECONDS`.
   *
   * @default DEFAULT_BAN_POLICY
   */
  readonly banPolicy?: BanPolicy;

  /**
   * An e-mail address subscribed to the stage's alarm topic.
   *
   * @default - no subscription
   */
  readonly alarmEmail?: string;

  /**
   * A regional AWS WAF web ACL on the API stage.
   *
   * @default STAGE_SETTINGS[stage].webAcl (on in production, off in staging)
   */
  readonly webAcl?: boolean;

  /**
   * Requests per source IP in 5 minutes above which the web ACL blocks the address.
   *
   * @default DEFAULT_IP_RATE_LIMIT (20,000)
   */
  readonly ipRateLimit?: number;

  /**
   * A custom domain whose base path `v1` serves the stage; `ApiBaseUrl` then names it.
   *
   * @default - the `execute-api` address alone
   */
  readonly domain?: ApiDomainOptions;

  /**
   * How CodeDeploy shifts the operations' traffic to a new version.
   *
   * @default STAGE_SETTINGS[stage].deployment (10% for 5 minutes in production, 50% for 3 minutes
   *   in staging)
   */
  readonly deployment?: StageSettings['deployment'];

  /** `NODE_OPTIONS=--enable-source-maps` on every function. @default STAGE_SETTINGS[stage].sourceMaps */
  readonly sourceMaps?: boolean;

  /** The only IAM roles the admin API admits. @default - the account's, by their own policy */
  readonly adminRoleArns?: readonly string[];

  /** Days an audit entry is kept (1 to 3650). @default STAGE_SETTINGS[stage].auditRetentionDays */
  readonly auditRetentionDays?: number;

  /**
   * The stage's regions, the home region first (`stageRegions`); the stack serves `env.region`.
   * Several: the home stack holds the global tables and replicated secrets, the admin API and the
   * audit pipe; another region's stack serves the API from that region's replicas.
   * @default - one region, the stack's
   */
  readonly regions?: readonly string[];

  /** The tables' names and conversion step (`tableSettings`). @default - none */
  readonly tableSettings?: StageTableSettings;

  /** GitHub's secret scanning keys, for the leaked-key endpoint. @default - GitHub's list */
  readonly secretScanningKeysUrl?: string;

  /** The stage's portal (home region only), its `PortalEdgeStack`'s web ACL. @default - none */
  readonly portal?: PortalOptions & { readonly webAclArn: string };
}

/**
 * One stage of the Petstore API in one of its regions, named `stackName(stage)` in the home region
 * and `regionalStackName(stage, region)` in another.
 *
 * Resources: the stage's KMS key ({@link StageKey}; another region's is its `RegionKeyStack`'s,
 * deployed first); the tables of `TABLES` ({@link createStageTables}: one region's tables, or
 * the global tables whose replicas the other regions' stacks read by name); the secrets
 * ({@link createStageSecrets}, replicated into the other regions); the authorizer's
 * {@link ServiceFunction}; one {@link OperationFunction} per route (served through its `live`
 * alias, shifted by CodeDeploy, rolled back on its own alarms), each running the per-key rate
 * limiter on the counters table (the primary limit); the {@link PetstoreApi}, with the leaked-key
 * endpoint (`addSecretScanning`: revoking through the home region's tables); the
 * {@link Monitoring} (alarm topic, every alarm notifying it, dashboard). The home region's stack
 * alone adds the admin API, the audit pipe and the {@link Portal}. Every function gets the stage
 * in `PETSTORE_STAGE` and its regions, home first, in `PETSTORE_REGIONS` (Lambda sets `AWS_REGION`).
 * Outputs: the names of `STACK_OUTPUTS` (the admin API's and the portal's in the home region only,
 * `RegionalDomainName` with a domain, `HealthCheckId` with latency records) and one
 * `usagePlanOutputName(plan)` per plan.
 *
 * Access logs need the API Gateway account's CloudWatch role, which this stack never creates (two
 * stages in one account would fight over it): deploy the `AccountStack` once per account and region first.
 *
 * @throws Error when `stage` is not one of `STAGES`, when `banPolicy` holds a number that is not
 *   a whole number >= 1, or when `env.region` is not one of several `regions`.
 */
export class PetstoreStack extends Stack {
  /** The stage's API. */
  readonly api: PetstoreApi;

  /**
   * The stage's customer managed KMS key of the stack's region (`alias/petstore-<stage>`, see
   * {@link StageKey}): every table and log group of the stage is encrypted with it, and so must
   * those that later constructs add (pass it as a table's `encryptionKey`, or make log groups
   * with `stageLogGroup(scope, id, this.logs)`).
   */
  readonly key: IKey;

  /** How the stage's log groups keep their events: the key, `logRetentionDays`, the removal policy. */
  readonly logs: StageLogs;

  /** The stage's admin API (keys and their audit trail), IAM-authorized: home region only. */
  readonly adminApi?: AdminApi;

  /** The stage's tables (this region's replicas), by definition. */
  readonly tables: ReadonlyMap<TableDefinition, ITable>;

  /** The stage's secrets (this region's replicas), by definition: those of `functionSecrets()`. */
  readonly secrets: ReadonlyMap<SecretDefinition, ISecret>;

  /** The stage's regions, the home region first (empty: one, environment-agnostic). */
  readonly regions: readonly string[];

  /** Whether the stack is the stage's home region's (its only one, with one region). */
  readonly home: boolean;

  constructor(scope: Construct, id: string, props: PetstoreStackProps) {
    if (!isStageName(props.stage)) {
      throw new Error(`stage must be one of ${STAGES.join(', ')}; got '${props.stage}'`);
    }
    const banPolicy = validBanPolicy(props.banPolicy ?? DEFAULT_BAN_POLICY);
    const regions = props.regions ?? [];
    const region = props.env?.region;
    const home = regions.length <= 1 || region === regions[0];
    if (!home && (region === undefined || !regions.includes(region))) {
      throw new Error(`env.region must be one of regions (${regions.join(', ')}); got ${region}`);
    }
    super(scope, id, {
      ...props,
      stackName: home ? stackName(props.stage) : regionalStackName(props.stage, region as string),
    });
    this.regions = regions;
    this.home = home;
    const settings = STAGE_SETTINGS[props.stage];
    const sourceMaps = props.sourceMaps ?? settings.sourceMaps;
    const production = props.stage === 'production';
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // Another region's key (its RegionKeyStack's) is used by ARN, so that grants go into this
    // stack's role policies (the account's IAM decides) rather than into the key's policy.
    this.key = home
      ? new StageKey(this, 'Key', { stage: props.stage, removalPolicy }).key
      : Key.fromKeyArn(this, 'RegionKey', stageKeyArnReference(props.stage));
    this.logs = {
      encryptionKey: this.key,
      retentionDays: settings.logRetentionDays,
      removalPolicy,
    };

    const stageTables = createStageTables(this, {
      stage: props.stage,
      regions,
      key: this.key,
      production,
      removalPolicy,
      settings: props.tableSettings ?? {},
    });
    this.tables = stageTables.tables;
    if (home && stageTables.owned) {
      new AuditEvents(this, 'AuditEvents', { table: this.table(AUDIT_TABLE) });
    }
    const regionList = regions.length > 0 ? regions.join(',') : Aws.REGION;
    const environment = {
      ...Object.fromEntries(
        [...this.tables].map(([definition, table]) => [definition.envVar, table.tableName]),
      ),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      PETSTORE_STAGE: props.stage,
      PETSTORE_REGIONS: regionList,
    };
    this.secrets = createStageSecrets(this, {
      stage: props.stage,
      regions,
      key: this.key,
      removalPolicy,
    });
    const common = { tables: this.tables, secrets: this.secrets, logs: this.logs, sourceMaps };
    const authorizer = new ServiceFunction(this, AUTHORIZER.constructId, {
      ...common,
      definition: AUTHORIZER,
      environment,
    });
    this.api = new PetstoreApi(this, 'Api', {
      authorizerFunction: authorizer.function,
      logs: this.logs,
      webAcl: (props.webAcl ?? settings.webAcl) ? { ipRateLimit: props.ipRateLimit } : undefined,
      domain: props.domain,
    });
    const operationEnvironment = {
      ...environment,
      RATE_LIMIT_BAN_THRESHOLD: String(banPolicy.threshold),
      RATE_LIMIT_BAN_SECONDS: String(banPolicy.durationSeconds),
    };
    const serviceMetric = (metricName: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: metricDimensions(props.stage),
      });
    const operationFunctions = ROUTES.map((route) => {
      const fn = new OperationFunction(this, route.constructId, {
        definition: route,
        tables: this.tables,
        secrets: this.secrets,
        environment: operationEnvironment,
        logs: this.logs,
        sourceMaps,
        serviceMetric,
        deployment: props.deployment ?? settings.deployment,
      });
      this.api.addOperation(route, fn.alias);
      return fn;
    });
    const secretScanning = addSecretScanning(this, {
      ...common,
      environment,
      api: this.api,
      serviceMetric,
      keysUrl: props.secretScanningKeysUrl,
      ...(!home && {
        homeRegion: { region: `${regions[0]}`, keyAlias: stageKeyAlias(props.stage) },
      }),
    });
    const keyService = {
      publicApi: this.api,
      regions: { stage: props.stage, names: regions },
      retentionDays: validRetention(props.auditRetentionDays ?? settings.auditRetentionDays),
      ...common,
      environment,
    };
    const admin = home
      ? addAdmin(this, { ...keyService, roleArns: props.adminRoleArns })
      : undefined;
    this.adminApi = admin?.api;
    const portal =
      home && props.portal
        ? new Portal(this, 'Portal', { ...keyService, ...props.portal, stage: props.stage })
        : undefined;
    const monitoring = new Monitoring(this, 'Monitoring', {
      api: this.api,
      functions: [
        ...operationFunctions,
        authorizer,
        secretScanning,
        ...(admin?.functions ?? []),
        ...(portal?.functions ?? []),
      ],
      tables: this.tables,
      serviceMetric,
      alarmEmail: props.alarmEmail,
      removalPolicy,
    });

    for (const [name, definition] of [
      [STACK_OUTPUTS.petsTableName, PETS_TABLE],
      [STACK_OUTPUTS.keysTableName, KEYS_TABLE],
      [STACK_OUTPUTS.countersTableName, COUNTERS_TABLE],
      [STACK_OUTPUTS.auditTableName, AUDIT_TABLE],
    ] as const) {
      new CfnOutput(this, name, { value: this.table(definition).tableName });
    }
    new CfnOutput(this, STACK_OUTPUTS.dashboardUrl, { value: monitoring.dashboardUrl });
    new CfnOutput(this, STACK_OUTPUTS.alarmTopicArn, { value: monitoring.topic.topicArn });
    new CfnOutput(this, STACK_OUTPUTS.regions, { value: regionList });
  }

  private table(definition: TableDefinition): ITable {
    const table = this.tables.get(definition);
    if (!table) throw new Error(`Table ${definition.constructId} is not one of TABLES`);
    return table;
  }
}
