/**
 * The stack of one deployment stage (issue 2, section 6; design notes, "The request, end to end"):
 * the tables at its own scope, and the constructs an operator thinks in: the authorizer's
 * function, one {@link OperationFunction} per route, the {@link PetstoreApi}. Everything it builds
 * is read from the shared tables (routes, plans, tables, gateway responses) that the local stack
 * reads too.
 */
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { type Attribute, AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, RATE_LIMIT_METRICS, SERVICE_NAME } from '../shared/metrics.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../shared/rate-limit/limiter.ts';
import { BAN_POLICY_ENV } from '../shared/rate-limit/middleware.ts';
import {
  COUNTERS_TABLE,
  KEYS_TABLE,
  type KeyAttribute,
  TABLES,
  type TableDefinition,
} from '../shared/tables.ts';
import { alarmOnSum } from './constructs/alarms.ts';
import { OperationFunction } from './constructs/operation-function.ts';
import { PetstoreApi } from './constructs/petstore-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { AUTHORIZER, ROUTES } from './routes.ts';
import {
  isStageName,
  STACK_OUTPUTS,
  STAGES,
  type StageName,
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
   * operation function as the `BAN_POLICY_ENV` variables.
   *
   * @default DEFAULT_BAN_POLICY
   */
  readonly banPolicy?: BanPolicy;
}

/**
 * One stage of the Petstore API (issue 2, section 6), named `stackName(stage)`.
 *
 * Resources: the tables of `TABLES` (on-demand, point-in-time recovery, their GSIs and TTL), kept
 * at the stack's scope under their construct ids so that their logical ids never change; the
 * authorizer's {@link ServiceFunction}; one {@link OperationFunction} per route, each running the
 * per-key rate limiter on the counters table (the primary limit); the {@link PetstoreApi}; an alarm
 * on the rate limiter failing open. Outputs: the names of `STACK_OUTPUTS` and one
 * `usagePlanOutputName(plan)` per plan.
 *
 * Access logs need the API Gateway account's CloudWatch role, which this stack never creates (two
 * stages in one account would fight over it): deploy `ApiGatewayAccountStack` once per account
 * and region first.
 *
 * @throws Error when `stage` is not one of `STAGES`, or when `banPolicy` holds a number that is not
 *   a whole number >= 1.
 */
export class PetstoreStack extends Stack {
  /** The stage's API. */
  readonly api: PetstoreApi;

  /** The stage's tables, by definition. */
  readonly tables: ReadonlyMap<TableDefinition, Table>;

  constructor(scope: Construct, id: string, props: PetstoreStackProps) {
    if (!isStageName(props.stage)) {
      throw new Error(`stage must be one of ${STAGES.join(', ')}; got '${props.stage}'`);
    }
    const banPolicy = checkBanPolicy(props.banPolicy ?? DEFAULT_BAN_POLICY);
    super(scope, id, { ...props, stackName: stackName(props.stage) });
    const production = props.stage === 'production';
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.tables = new Map(
      TABLES.map((definition) => [
        definition,
        this.createTable(definition, production, removalPolicy),
      ]),
    );
    const environment = {
      ...Object.fromEntries(
        [...this.tables].map(([definition, table]) => [definition.envVar, table.tableName]),
      ),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    };
    const authorizer = new ServiceFunction(this, AUTHORIZER.constructId, {
      definition: AUTHORIZER,
      tables: this.tables,
      environment,
      removalPolicy,
    });
    this.api = new PetstoreApi(this, 'Api', {
      authorizerFunction: authorizer.function,
      removalPolicy,
    });
    const operationEnvironment = {
      ...environment,
      [BAN_POLICY_ENV.threshold]: String(banPolicy.threshold),
      [BAN_POLICY_ENV.durationSeconds]: String(banPolicy.durationSeconds),
    };
    for (const route of ROUTES) {
      const operation = new OperationFunction(this, route.constructId, {
        definition: route,
        tables: this.tables,
        environment: operationEnvironment,
        removalPolicy,
      });
      this.api.addOperation(route, operation.function);
    }
    // Failing open keeps the API up but uncounted; ops must hear of it at once.
    alarmOnSum(
      this,
      'RateLimiterUnavailable',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: RATE_LIMIT_METRICS.unavailable,
        dimensionsMap: { service: SERVICE_NAME },
      }),
      'requests admitted uncounted because the rate limiter could not reach its counters table',
    );

    for (const [planId, usagePlan] of this.api.usagePlans) {
      new CfnOutput(this, usagePlanOutputName(planId), { value: usagePlan.usagePlanId });
    }
    new CfnOutput(this, STACK_OUTPUTS.apiBaseUrl, { value: this.api.restApi.url });
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.api.restApi.restApiId });
    new CfnOutput(this, STACK_OUTPUTS.keysTableName, {
      value: this.table(KEYS_TABLE).tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.countersTableName, {
      value: this.table(COUNTERS_TABLE).tableName,
    });
  }

  private createTable(
    definition: TableDefinition,
    production: boolean,
    removalPolicy: RemovalPolicy,
  ): Table {
    const table = new Table(this, definition.constructId, {
      partitionKey: attribute(definition.partitionKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      deletionProtection: production,
      removalPolicy,
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

  private table(definition: TableDefinition): Table {
    const table = this.tables.get(definition);
    if (!table) throw new Error(`Table ${definition.constructId} is not one of TABLES`);
    return table;
  }
}

/**
 * Checks the `banPolicy` prop.
 *
 * @returns The policy, unchanged.
 * @throws Error unless `threshold` and `durationSeconds` are whole numbers >= 1.
 */
function checkBanPolicy(policy: BanPolicy): BanPolicy {
  for (const field of ['threshold', 'durationSeconds'] as const) {
    const value = policy[field];
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`banPolicy.${field} must be a whole number >= 1; got ${value}`);
    }
  }
  return policy;
}
