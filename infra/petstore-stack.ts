/**
 * The stack of one deployment stage (issue 2, section 6; design notes, "The request, end to end"):
 * the tables, one function per route plus the authorizer, the RestApi with its gateway responses
 * and 405 answers, the usage plans and a few alarms. Everything it builds is read from the shared
 * tables (routes, plans, tables, gateway responses) that the local stack reads too.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  ContentHandling,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MockIntegration,
  Period,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { type Attribute, AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, RATE_LIMIT_METRICS, SERVICE_NAME } from '../shared/metrics.ts';
import { CURSOR_KEY_SECRET_ARN_ENV } from '../shared/pets/cursor.ts';
import { BACKSTOP_FACTOR, PLAN_IDS, PLANS, usagePlanSettings } from '../shared/plans.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../shared/rate-limit/limiter.ts';
import { BAN_POLICY_ENV } from '../shared/rate-limit/middleware.ts';
import {
  COUNTERS_TABLE,
  IDEMPOTENCY_TABLE,
  KEYS_TABLE,
  type KeyAttribute,
  PETS_TABLE,
  STATUS_INDEX,
  TABLES,
  type TableDefinition,
} from '../shared/tables.ts';
import { GATEWAY_RESPONSES, methodNotAllowed } from './gateway-responses.ts';
import {
  API_STAGE_NAME,
  AUTHORIZER_CACHE_TTL_SECONDS,
  AUTHORIZER_ENTRY,
  BINARY_MEDIA_TYPES,
  FUNCTION_TIMEOUT_SECONDS,
  ROUTES,
  type RouteDefinition,
  resourcePaths,
} from './routes.ts';
import {
  isStageName,
  STACK_OUTPUTS,
  STAGES,
  type StageName,
  stackName,
  usagePlanOutputName,
} from './stages.ts';

/** Entries in the route table are relative to the repository root, whatever the cwd. */
const REPOSITORY_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Construct id of the authorizer's function (a contract, like the route table's ids). */
const AUTHORIZER_FUNCTION_ID = 'AuthorizerFunction';

/** How long function and access logs are kept. */
const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Alarms look at sums over this period and fire on the first bad one. */
const ALARM_PERIOD = Duration.minutes(5);

/**
 * esbuild settings of every function: one minified ESM file per function (`index.mjs`) with its
 * source map, the AWS SDK bundled (so the code runs against the SDK version it was tested with,
 * not the runtime's), built by the local esbuild, never in Docker.
 */
const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  // Bundled CommonJS dependencies call require(), which an ES module does not have.
  banner:
    "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  externalModules: [],
  forceDockerBundling: false,
};

/** DynamoDB actions a function may call on one table, optionally also on one of its GSIs. */
interface TableAccess {
  readonly table: TableDefinition;
  readonly actions: readonly string[];
  readonly index?: string;
}

/**
 * The rate limiter's calls on a request path: conditional and plain UpdateItem on the counters
 * table (its GetItem serves only the keys command's `banState`).
 */
const RATE_LIMITER_ACCESS: TableAccess = {
  table: COUNTERS_TABLE,
  actions: ['dynamodb:UpdateItem'],
};

/**
 * Exactly the DynamoDB calls each function makes (least privilege): its store's and, for every
 * operation, the rate limiter's. createPet's pet-id sequence is an item of the pets table
 * (UpdateItem; PutItem and one Query per status to seed it once, GetItem of its old counters-table
 * item); its idempotency records are put, completed in the pet's transaction (UpdateItem) and
 * released (DeleteItem).
 */
const TABLE_ACCESS: Readonly<
  Record<RouteDefinition['operationId'] | 'authorizer', readonly TableAccess[]>
> = {
  listPets: [
    { table: PETS_TABLE, actions: ['dynamodb:Query'], index: STATUS_INDEX },
    RATE_LIMITER_ACCESS,
  ],
  createPet: [
    {
      table: PETS_TABLE,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
      index: STATUS_INDEX,
    },
    { table: COUNTERS_TABLE, actions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'] },
    {
      table: IDEMPOTENCY_TABLE,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    },
  ],
  getPet: [{ table: PETS_TABLE, actions: ['dynamodb:GetItem'] }, RATE_LIMITER_ACCESS],
  authorizer: [{ table: KEYS_TABLE, actions: ['dynamodb:GetItem'] }],
};

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
 * Resources: the tables of `TABLES` (on-demand, point-in-time recovery, their GSIs and TTL); one
 * NodejsFunction per route plus the authorizer (Node.js 22, arm64, ESM), each operation running the
 * per-key rate limiter on the counters table (the primary limit); a RestApi whose stage is `v1`
 * with a Lambda REQUEST authorizer and a required key on every operation,
 * `apiKeySourceType: AUTHORIZER`, an ANY method per path answering 405 and the Error-shaped
 * gateway responses; one usage plan per standard plan, the edge backstop (`usagePlanSettings`);
 * alarms on API 5XX, on the operations' errors and on every function's throttles. Outputs: the
 * names of `STACK_OUTPUTS` and one `usagePlanOutputName(plan)` per plan.
 *
 * Access logs need the API Gateway account's CloudWatch role, which this stack never creates (two
 * stages in one account would fight over it): deploy `ApiGatewayAccountStack` once per account
 * and region first.
 *
 * @throws Error when `stage` is not one of `STAGES`, or when `banPolicy` holds a number that is not
 *   a whole number >= 1.
 */
export class PetstoreStack extends Stack {
  /** The stage's RestApi. */
  readonly api: RestApi;

  private readonly tables = new Map<TableDefinition, Table>();

  constructor(scope: Construct, id: string, props: PetstoreStackProps) {
    if (!isStageName(props.stage)) {
      throw new Error(`stage must be one of ${STAGES.join(', ')}; got '${props.stage}'`);
    }
    const banPolicy = checkBanPolicy(props.banPolicy ?? DEFAULT_BAN_POLICY);
    super(scope, id, { ...props, stackName: stackName(props.stage) });
    const production = props.stage === 'production';
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    for (const definition of TABLES) {
      this.tables.set(definition, this.createTable(definition, production, removalPolicy));
    }
    const environment = Object.fromEntries(
      [...this.tables].map(([definition, table]) => [definition.envVar, table.tableName]),
    );

    const authorizerFunction = this.createFunction(
      AUTHORIZER_FUNCTION_ID,
      AUTHORIZER_ENTRY,
      TABLE_ACCESS.authorizer,
      environment,
      removalPolicy,
    );
    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: authorizerFunction,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });

    const cursorKey = this.createCursorKey(removalPolicy);
    this.api = this.createApi(removalPolicy);
    const operationEnvironment = {
      ...environment,
      [BAN_POLICY_ENV.threshold]: String(banPolicy.threshold),
      [BAN_POLICY_ENV.durationSeconds]: String(banPolicy.durationSeconds),
    };
    for (const route of ROUTES) {
      const handler = this.createFunction(
        route.constructId,
        route.entry,
        TABLE_ACCESS[route.operationId],
        operationEnvironment,
        removalPolicy,
      );
      if (route.operationId === 'listPets') {
        handler.addEnvironment(CURSOR_KEY_SECRET_ARN_ENV, cursorKey.secretArn);
        cursorKey.grantRead(handler);
      }
      this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(handler), {
          authorizer,
          apiKeyRequired: true,
          operationName: route.operationId,
        });
      this.alarmOnSum(`${route.constructId}Errors`, handler.metricErrors(), 'function errors');
    }
    for (const path of resourcePaths().keys()) {
      this.addMethodNotAllowed(path);
    }
    for (const response of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(response.type, {
        type: ResponseType.of(response.type),
        statusCode: String(response.body.status),
        templates: { 'application/json': JSON.stringify(response.body) },
        responseHeaders: quoteHeaders({ ...response.headers, 'Content-Type': 'application/json' }),
      });
    }
    // The authorizer throws for every refused key, so its Errors count clients, not faults; its
    // own failures reach clients as 5XX and trip this alarm.
    this.alarmOnSum('Api5xx', this.api.deploymentStage.metricServerError(), 'API 5XX responses');
    // Failing open keeps the API up but uncounted; ops must hear of it at once.
    this.alarmOnSum(
      'RateLimiterUnavailable',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: RATE_LIMIT_METRICS.unavailable,
        dimensionsMap: { service: SERVICE_NAME },
      }),
      'requests admitted uncounted because the rate limiter could not reach its counters table',
    );

    for (const planId of PLAN_IDS) {
      const plan = PLANS[planId];
      const settings = usagePlanSettings(plan);
      const usagePlan = this.api.addUsagePlan(`UsagePlan${plan.name}`, {
        name: `${this.stackName}-${plan.name}`,
        description:
          `${plan.name} plan: ${plan.perMinute} requests per minute and ${plan.perDay} per day, ` +
          `enforced by the functions. This usage plan is the edge backstop at ${BACKSTOP_FACTOR}x: ` +
          `burst ${settings.burstLimit}, ${settings.quotaPerDay} requests per day.`,
        throttle: { rateLimit: settings.rateLimit, burstLimit: settings.burstLimit },
        quota: { limit: settings.quotaPerDay, period: Period.DAY },
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
      new CfnOutput(this, usagePlanOutputName(planId), { value: usagePlan.usagePlanId });
    }

    new CfnOutput(this, STACK_OUTPUTS.apiBaseUrl, { value: this.api.url });
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.api.restApiId });
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

  /**
   * The stage's key for listPets's cursors (shared/pets/cursor.ts): 64 random letters and digits
   * that CloudFormation has Secrets Manager generate, so the key is in no template or repository.
   */
  private createCursorKey(removalPolicy: RemovalPolicy): Secret {
    const secret = new Secret(this, 'CursorKeySecret', {
      description: `${this.stackName}: HMAC key of the listPets cursors`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key only signs paging positions (an id and a status filter, no secret data); a rotation would turn every cursor clients hold into a 400. A suspected leak is handled by replacing the value by hand (containers pick it up within the hour).',
    });
    return secret;
  }

  private table(definition: TableDefinition): Table {
    const table = this.tables.get(definition);
    if (!table) throw new Error(`Table ${definition.constructId} is not one of TABLES`);
    return table;
  }

  /**
   * A function with its own log group and a role that may write there and make exactly the
   * DynamoDB calls of `access` (no managed policy, no wildcard).
   */
  private createFunction(
    id: string,
    entry: string,
    access: readonly TableAccess[],
    environment: Record<string, string>,
    removalPolicy: RemovalPolicy,
  ): NodejsFunction {
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: LOG_RETENTION, removalPolicy });
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    for (const { table, actions, index } of access) {
      const arn = this.table(table).tableArn;
      role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: [...actions],
          resources: index ? [arn, `${arn}/index/${index}`] : [arn],
        }),
      );
    }

    const fn = new NodejsFunction(this, id, {
      entry: join(REPOSITORY_ROOT, entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup,
      projectRoot: REPOSITORY_ROOT,
      depsLockFilePath: join(REPOSITORY_ROOT, 'package-lock.json'),
      bundling: BUNDLING,
      environment: {
        ...environment,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The design card fixes Node.js 22 (NODEJS_22_X) for every function (issue 2, section 6).',
    });
    this.alarmOnSum(`${id}Throttles`, fn.metricThrottles(), 'function throttles');
    return fn;
  }

  /**
   * The RestApi with its `v1` stage and JSON access logs. No CloudWatch role: that is
   * `ApiGatewayAccountStack`'s, once per account.
   */
  private createApi(removalPolicy: RemovalPolicy): RestApi {
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy,
    });
    const api = new RestApi(this, 'Api', {
      restApiName: this.stackName,
      description: 'Petstore API (petstore-spec.md)',
      cloudWatchRole: false,
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      deployOptions: {
        stageName: API_STAGE_NAME,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            sourceIp: AccessLogField.contextIdentitySourceIp(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            keyId: AccessLogField.contextAuthorizer('keyId'),
            errorType: AccessLogField.contextErrorResponseType(),
            errorMessage: AccessLogField.contextErrorMessage(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            integrationError: AccessLogField.contextIntegrationErrorMessage(),
          }),
        ),
      },
    });
    // RestApi adds an `Endpoint` output under a hashed name; ApiBaseUrl is the one ops tools read.
    api.node.tryRemoveChild('Endpoint');

    Validations.of(api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'The functions validate every request with valibot so that each 400 carries a catalogue code and names the field; an API Gateway validator would answer with its own message.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No web ACL: every method needs a key checked by the authorizer, and each key is throttled by its usage plan.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Access logs record every request with its status, error type, authorizer and integration errors and key id; execution logs would go to a log group API Gateway creates outside the stack, without retention.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Clients authenticate with bearer API keys checked by a Lambda REQUEST authorizer (petstore-spec.md, "Authentication"); there are no Cognito users.',
      },
    );
    return api;
  }

  /**
   * The ANY method of a path: a mock answering 405 with the Error body and `Allow`. The path's
   * explicit methods take precedence over ANY in API Gateway, so only other methods reach it.
   * Like the local gateway, it answers before any authorizer: it reveals only what the OpenAPI
   * document publishes, and an unknown path already answers 404 without a key.
   */
  private addMethodNotAllowed(path: string): void {
    const { body, allow } = methodNotAllowed(path);
    const headers = quoteHeaders(
      { Allow: allow, 'Content-Type': 'application/json' },
      'method.response.header.',
    );
    const method = this.api.root.resourceForPath(path).addMethod(
      'ANY',
      new MockIntegration({
        // Bodies arrive as binary (BINARY_MEDIA_TYPES); the request template needs text.
        contentHandling: ContentHandling.CONVERT_TO_TEXT,
        requestTemplates: { 'application/json': JSON.stringify({ statusCode: body.status }) },
        integrationResponses: [
          {
            statusCode: String(body.status),
            responseTemplates: { 'application/json': JSON.stringify(body) },
            responseParameters: headers,
          },
        ],
      }),
      {
        authorizationType: AuthorizationType.NONE,
        methodResponses: [
          {
            statusCode: String(body.status),
            responseParameters: Object.fromEntries(
              Object.keys(headers).map((name) => [name, true]),
            ),
          },
        ],
      },
    );
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'A mock that only answers 405 with the methods the path serves; it reaches no function and no data, and answers as the local gateway does.',
    });
  }

  /** An alarm when the metric's sum over {@link ALARM_PERIOD} reaches 1. */
  private alarmOnSum(id: string, metric: Metric, what: string): void {
    metric.with({ statistic: 'Sum', period: ALARM_PERIOD }).createAlarm(this, `${id}Alarm`, {
      alarmDescription: `${this.stackName}: ${what} in the last ${ALARM_PERIOD.toMinutes()} minutes`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
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

/**
 * Header values as API Gateway mapping expressions: static values in single quotes.
 *
 * @param headers Header name → plain value, e.g. `{ Allow: 'GET, POST' }`.
 * @param prefix Prepended to each name, e.g. `method.response.header.`.
 */
function quoteHeaders(headers: Record<string, string>, prefix = ''): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [`${prefix}${name}`, `'${value}'`]),
  );
}
