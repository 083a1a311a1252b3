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
  StreamViewType,
  Table,
} from 'aws-cdk-lib/aws-dynamodb';
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
import { AdminApi, addAdminFunctions, adminSettings } from './constructs/admin-api.ts';
import type { ApiDomainOptions } from './constructs/api-domain.ts';
import { AuditEvents } from './constructs/audit-events.ts';
import { appendOnlyPolicy, validRetention } from './constructs/audit-table.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { OperationFunction } from './constructs/operation-function.ts';
import { PetstoreApi } from './constructs/petstore-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
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

  /**
   * The only IAM roles (ARNs in the stage's account) the admin API admits.
   *
   * @default - every principal of the stage's account whose own policy allows invoking it
   */
  readonly adminRoleArns?: readonly string[];

  /**
   * Days an audit entry is kept (the audit table's TTL), a whole number from 1 to 3650.
   *
   * @default STAGE_SETTINGS[stage].auditRetentionDays (400)
   */
  readonly auditRetentionDays?: number;
}

/**
 * One stage of the Petstore API, named `stackName(stage)`.
 *
 * Resources: the tables of `TABLES` (on-demand, point-in-time recovery, their GSIs and TTL), kept
 * at the stack's scope under their construct ids so that their logical ids never change; the
 * authorizer's {@link ServiceFunction}; one {@link OperationFunction} per route (served through
 * its `live` alias, shifted by CodeDeploy, rolled back on its own alarms), each
 * running the per-key rate limiter on the counters table (the primary limit); the
 * {@link PetstoreApi}; the {@link Monitoring} (alarm topic, every alarm notifying it, dashboard).
 * Every function gets the stage in `PETSTORE_STAGE`, so that the service's own metrics carry it.
 * Outputs: the names of `STACK_OUTPUTS` and one `usagePlanOutputName(plan)` per plan.
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
    const authorizer = new ServiceFunction(this, AUTHORIZER.constructId, {
      definition: AUTHORIZER,
      tables: this.tables,
      secrets: this.secrets,
      environment,
      removalPolicy,
      sourceMaps,
    });
    this.api = new PetstoreApi(this, 'Api', {
      authorizerFunction: authorizer.function,
      removalPolicy,
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
        removalPolicy,
        sourceMaps,
        serviceMetric,
        deployment: props.deployment ?? settings.deployment,
      });
      this.api.addOperation(route, operation.alias);
      return operation;
    });
    this.adminApi = new AdminApi(this, 'AdminApi', {
      removalPolicy,
      roleArns: props.adminRoleArns,
    });
    const retention = validRetention(props.auditRetentionDays ?? settings.auditRetentionDays);
    const adminFunctions = addAdminFunctions(this, this.adminApi, {
      tables: this.tables,
      secrets: this.secrets,
      environment: { ...environment, ...adminSettings(this.api, retention) },
      removalPolicy,
      sourceMaps,
    });
    const monitoring = new Monitoring(this, 'Monitoring', {
      api: this.api,
      functions: [...operations, authorizer, ...adminFunctions],
      tables: this.tables,
      serviceMetric,
      alarmEmail: props.alarmEmail,
      removalPolicy,
    });

    for (const [planId, usagePlan] of this.api.usagePlans) {
      new CfnOutput(this, usagePlanOutputName(planId), { value: usagePlan.usagePlanId });
    }
    new CfnOutput(this, STACK_OUTPUTS.apiBaseUrl, { value: this.api.url });
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.api.restApi.restApiId });
    new CfnOutput(this, STACK_OUTPUTS.petsTableName, {
      value: this.table(PETS_TABLE).tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.keysTableName, {
      value: this.table(KEYS_TABLE).tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.countersTableName, {
      value: this.table(COUNTERS_TABLE).tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.dashboardUrl, { value: monitoring.dashboardUrl });
    new CfnOutput(this, STACK_OUTPUTS.alarmTopicArn, { value: monitoring.topic.topicArn });
    new CfnOutput(this, STACK_OUTPUTS.adminApiBaseUrl, { value: this.adminApi.url });
    new CfnOutput(this, STACK_OUTPUTS.auditTableName, {
      value: this.table(AUDIT_TABLE).tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.auditRetentionDays, { value: String(retention) });
  }

  private createTable(
    definition: TableDefinition,
    production: boolean,
    removalPolicy: RemovalPolicy,
  ): Table {
    const retained = definition.alwaysRetained === true;
    const table = new Table(this, definition.constructId, {
      partitionKey: attribute(definition.partitionKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      stream: definition.streamNewImages ? StreamViewType.NEW_IMAGE : undefined,
      deletionProtection: production || retained,
      removalPolicy: retained ? RemovalPolicy.RETAIN : removalPolicy,
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
