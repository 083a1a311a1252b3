/**
 * The stack of one deployment stage: the tables at its own scope, the authorizer's function, one
 * {@link OperationFunction} per route and the {@link PetstoreApi}, built from the shared tables.
 */
import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type Attribute,
  AttributeType,
  BillingMode,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import * as v from 'valibot';
import {
  AUDIT_TABLE,
  COUNTERS_TABLE,
  KEYS_TABLE,
  type KeyAttribute,
  PETS_TABLE,
  TABLES,
  type TableDefinition,
} from '../shared/dynamodb/tables.ts';
import { SERVICE_NAME } from '../shared/logger.ts';
import { METRICS_NAMESPACE, metricDimensions } from '../shared/metrics.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../shared/rate-limit/rate-limiter.ts';
import type { SecretDefinition } from '../shared/secret-definitions.ts';
import { type AdminApi, addAdmin } from './constructs/admin-api.ts';
import type { ApiDomainOptions } from './constructs/api-domain.ts';
import { AUDIT_STREAM_VIEW, AuditEvents } from './constructs/audit-events.ts';
import { appendOnlyPolicy, validRetention } from './constructs/audit-table.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { OperationFunction } from './constructs/operation-function.ts';
import { PetstoreApi } from './constructs/petstore-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { StageKey, type StageLogs } from './constructs/stage-key.ts';
import { AUTHORIZER, functionSecrets, ROUTES } from './routes.ts';
import {
  isStageName,
  STACK_OUTPUTS,
  STAGE_SETTINGS,
  STAGES,
  type StageName,
  type StageSettings,
  stackName,
  usagePlanOutputName,
} from './stages.ts';

const ATTRIBUTE_TYPES: Readonly<Record<KeyAttribute['type'], AttributeType>> = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
};

function attribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: ATTRIBUTE_TYPES[key.type] };
}

/** Props of {@link PetstoreStack}. Its CloudFormation name is always `stackName(stage)`. */
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

  /**
   * `NODE_OPTIONS=--enable-source-maps` on every function.
   *
   * @default STAGE_SETTINGS[stage].sourceMaps
   */
  readonly sourceMaps?: boolean;

  /** The only IAM roles the admin API admits. @default - the account's, by their own policy */
  readonly adminRoleArns?: readonly string[];

  /** Days an audit entry is kept (1 to 3650). @default STAGE_SETTINGS[stage].auditRetentionDays */
  readonly auditRetentionDays?: number;
}

/**
 * One stage of the Petstore API, named `stackName(stage)`.
 *
 * Resources: the stage's KMS key ({@link StageKey}); the tables of `TABLES` (on-demand,
 * point-in-time recovery, their GSIs and TTL, encrypted with the key), kept
 * at the stack's scope under their construct ids so that their logical ids never change; the
 * authorizer's {@link ServiceFunction}; one {@link OperationFunction} per route (served through
 * its `live` alias, shifted by CodeDeploy, rolled back on its own alarms), each
 * running the per-key rate limiter on the counters table (the primary limit); the
 * {@link PetstoreApi}; the {@link Monitoring} (alarm topic, every alarm notifying it, dashboard).
 * Every function gets the stage in `PETSTORE_STAGE`, so that the service's own metrics carry it.
 * Outputs: the names of `STACK_OUTPUTS` (`RegionalDomainName` with a domain, `HealthCheckId` with
 * latency records) and one `usagePlanOutputName(plan)` per plan.
 *
 * Access logs need the API Gateway account's CloudWatch role, which this stack never creates (two
 * stages in one account would fight over it): deploy the `AccountStack` once per account
 * and region first.
 *
 * @throws Error when `stage` is not one of `STAGES`, or when `banPolicy` holds a number that is not
 *   a whole number >= 1.
 */
export class PetstoreStack extends Stack {
  /** The stage's API. */
  readonly api: PetstoreApi;

  /**
   * The stage's customer managed KMS key (`alias/petstore-<stage>`, see {@link StageKey}): every
   * table and log group of the stage is encrypted with it, and so must those that later
   * constructs add (pass it as a table's `encryptionKey`, or make log groups with
   * `stageLogGroup(scope, id, this.logs)`).
   */
  readonly key: IKey;

  /** How the stage's log groups keep their events: the key, `logRetentionDays`, the removal policy. */
  readonly logs: StageLogs;

  /** The stage's admin API (keys and their audit trail), IAM-authorized. */
  readonly adminApi: AdminApi;

  /** The stage's tables, by definition. */
  readonly tables: ReadonlyMap<TableDefinition, Table>;

  /** The stage's secrets, by definition: those the functions read (`functionSecrets()`). */
  readonly secrets: ReadonlyMap<SecretDefinition, Secret>;

  constructor(scope: Construct, id: string, props: PetstoreStackProps) {
    if (!isStageName(props.stage)) {
      throw new Error(`stage must be one of ${STAGES.join(', ')}; got '${props.stage}'`);
    }
    const banPolicy = validBanPolicy(props.banPolicy ?? DEFAULT_BAN_POLICY);
    super(scope, id, { ...props, stackName: stackName(props.stage) });
    const settings = STAGE_SETTINGS[props.stage];
    const sourceMaps = props.sourceMaps ?? settings.sourceMaps;
    const production = props.stage === 'production';
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.key = new StageKey(this, 'Key', { stage: props.stage, removalPolicy }).key;
    this.logs = {
      encryptionKey: this.key,
      retentionDays: settings.logRetentionDays,
      removalPolicy,
    };

    this.tables = new Map(
      TABLES.map((definition) => [
        definition,
        this.createTable(definition, production, removalPolicy),
      ]),
    );
    new AuditEvents(this, 'AuditEvents', { table: this.table(AUDIT_TABLE) });
    const environment = {
      ...Object.fromEntries(
        [...this.tables].map(([definition, table]) => [definition.envVar, table.tableName]),
      ),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      PETSTORE_STAGE: props.stage,
    };
    this.secrets = new Map(
      functionSecrets().map((definition) => [
        definition,
        this.createSecret(definition, removalPolicy),
      ]),
    );
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
    const operations = ROUTES.map((route) => {
      const operation = new OperationFunction(this, route.constructId, {
        definition: route,
        tables: this.tables,
        secrets: this.secrets,
        environment: operationEnvironment,
        logs: this.logs,
        sourceMaps,
        serviceMetric,
        deployment: props.deployment ?? settings.deployment,
      });
      this.api.addOperation(route, operation.alias);
      return operation;
    });
    const admin = addAdmin(this, {
      publicApi: this.api,
      roleArns: props.adminRoleArns,
      retentionDays: validRetention(props.auditRetentionDays ?? settings.auditRetentionDays),
      ...common,
      environment,
    });
    this.adminApi = admin.api;
    const monitoring = new Monitoring(this, 'Monitoring', {
      api: this.api,
      functions: [...operations, authorizer, ...admin.functions],
      tables: this.tables,
      serviceMetric,
      alarmEmail: props.alarmEmail,
      removalPolicy,
    });

    for (const [planId, usagePlan] of this.api.usagePlans) {
      new CfnOutput(this, usagePlanOutputName(planId), { value: usagePlan.usagePlanId });
    }
    new CfnOutput(this, STACK_OUTPUTS.apiBaseUrl, { value: this.api.url });
    new CfnOutput(this, STACK_OUTPUTS.regionalApiBaseUrl, { value: this.api.regionalUrl });
    const { domain } = this.api;
    if (domain) {
      const value = domain.domain.domainNameAliasDomainName;
      new CfnOutput(this, STACK_OUTPUTS.regionalDomainName, { value });
    }
    if (domain?.healthCheck) {
      new CfnOutput(this, STACK_OUTPUTS.healthCheckId, { value: domain.healthCheck.healthCheckId });
    }
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.api.restApi.restApiId });
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
  }

  private createTable(
    definition: TableDefinition,
    production: boolean,
    removalPolicy: RemovalPolicy,
  ): Table {
    const table = new Table(this, definition.constructId, {
      partitionKey: attribute(definition.partitionKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      stream: definition.streamNewImages ? AUDIT_STREAM_VIEW : undefined,
      deletionProtection: production || definition.alwaysRetained === true,
      removalPolicy: definition.alwaysRetained ? RemovalPolicy.RETAIN : removalPolicy,
      resourcePolicy: definition === AUDIT_TABLE ? appendOnlyPolicy() : undefined,
    });
    for (const index of definition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey && attribute(index.sortKey),
      });
    }
    return table;
  }

  /**
   * A secret of the stage: 64 random letters and digits that CloudFormation has Secrets Manager
   * generate, so the value is in no template or repository.
   */
  private createSecret(definition: SecretDefinition, removalPolicy: RemovalPolicy): Secret {
    const secret = new Secret(this, definition.constructId, {
      description: `${this.stackName}: ${definition.description}`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: definition.withoutRotation,
    });
    return secret;
  }

  private table(definition: TableDefinition): Table {
    const table = this.tables.get(definition);
    if (!table) throw new Error(`Table ${definition.constructId} is not one of TABLES`);
    return table;
  }
}

/** A ban policy's figures: whole numbers >= 1. */
const BanPolicySchema = v.object({
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1)),
  durationSeconds: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/**
 * Checks the `banPolicy` prop.
 *
 * @returns The policy, unchanged.
 * @throws Error naming the first field that is not a whole number >= 1.
 */
function validBanPolicy(policy: BanPolicy): BanPolicy {
  const result = v.safeParse(BanPolicySchema, policy);
  if (result.success) return result.output;
  const [issue] = result.issues;
  throw new Error(
    `banPolicy.${v.getDotPath(issue)} must be a whole number >= 1; got ${String(issue.input)}`,
  );
}
