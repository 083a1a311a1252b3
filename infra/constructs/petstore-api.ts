/**
 * The API as clients meet it: the RestApi and its `v1` stage, the authorizer, the Error-shaped
 * gateway responses, the 405 answers and the usage plans (the edge backstop).
 */
import { type CfnElement, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  ContentHandling,
  IdentitySource,
  MockIntegration,
  Period,
  RequestAuthorizer,
  type RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  ComparisonOperator,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type LogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { standardUsagePlanName } from '../../shared/apigateway/key-registration.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import {
  BACKSTOP_FACTOR,
  PLAN_IDS,
  PLANS,
  type StandardPlanId,
  usagePlanSettings,
} from '../../shared/plans.ts';
import { GATEWAY_RESPONSES, methodNotAllowed } from '../gateway-responses.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, type RouteDefinition, resourcePaths } from '../routes.ts';
import { STACK_OUTPUTS, usagePlanOutputName } from '../stages.ts';
import { ALARM_PERIOD, alarmOnSum } from './alarms.ts';
import { ApiDomain, type ApiDomainOptions } from './api-domain.ts';
import { ApiWebAcl } from './api-web-acl.ts';
import {
  addGatewayResponses,
  createRestApi,
  executionLogGroup,
  invokedThrough,
  quoteHeaders,
} from './rest-api.ts';
import { type StageLogs, stageLogGroup } from './stage-key.ts';

/** Props of {@link PetstoreApi}. */
export interface PetstoreApiProps {
  /** The Lambda REQUEST authorizer's function (identity source: the Authorization header). */
  readonly authorizerFunction: IFunction;

  /** How the access log and the execution log keep their events. */
  readonly logs: StageLogs;

  /** A regional AWS WAF web ACL on the stage (see {@link ApiWebAcl}). @default - no web ACL */
  readonly webAcl?: { readonly ipRateLimit?: number };

  /**
   * A custom domain (see {@link ApiDomain}); unless it keeps it, the `execute-api` endpoint is
   * disabled, so that the stage has one address.
   *
   * @default - the `execute-api` address alone
   */
  readonly domain?: ApiDomainOptions;

  /**
   * The API latency (p99, whole requests) that trips the latency alarm when three 5-minute periods
   * in a row reach it.
   *
   * @default Duration.seconds(1)
   */
  readonly latencyP99Threshold?: Duration;
}

/**
 * The stage's RestApi (stage `v1`, `apiKeySourceType: AUTHORIZER`, JSON access logs, execution
 * logs at ERROR without data tracing, both in log groups of the stage's key), its REQUEST
 * authorizer (result cached {@link AUTHORIZER_CACHE_TTL_SECONDS} s), one Error-shaped gateway
 * response per row of `GATEWAY_RESPONSES`, an ANY mock answering 405 on every resource path, one
 * usage plan per standard plan (`usagePlanSettings`); X-Ray tracing on the stage; a REGIONAL
 * endpoint, optionally behind a web ACL and a custom domain; alarms on 5XX answers, on authorizer failures (counted
 * from the access log) and on p99 latency. Operations are added with {@link addOperation}.
 *
 * The RestApi is this construct's default child, so that its logical id, and those of its stage
 * and usage plans, are the ones it had at the stack's scope: a new RestApi would change the base
 * URL, and new usage plans would lose the API keys the keys command put in them.
 *
 * No CloudWatch role: access and execution logs need the `AccountStack`, deployed once per
 * account and region.
 */
export class PetstoreApi extends Construct {
  /** The RestApi. */
  readonly restApi: RestApi;

  /** The usage plan of each standard plan. */
  readonly usagePlans: ReadonlyMap<StandardPlanId, UsagePlan>;

  /** Fires on the first 5XX answer in five minutes. */
  readonly serverErrorsAlarm: Alarm;

  /**
   * Requests the authorizer failed (not refused): access-log lines whose error type is
   * AUTHORIZER_FAILURE or AUTHORIZER_CONFIGURATION_ERROR, by RestApi id. The authorizer's Lambda
   * Errors cannot tell these apart, since it throws for every refused key too.
   */
  readonly authorizerFailures: Metric;

  /** The web ACL on the stage, when `webAcl` was given. */
  readonly webAcl?: ApiWebAcl;

  /** The custom domain, when `domain` was given. */
  readonly domain?: ApiDomain;

  /** The base URL clients call, ending in `/v1/`: the custom domain's, or the `execute-api` one. */
  readonly url: string;

  /**
   * This region's own base URL, ending in `/v1/`: the `execute-api` one while that endpoint is on,
   * else the domain's, which reaches this region through the domain's regional name.
   */
  readonly regionalUrl: string;

  private readonly authorizer: RequestAuthorizer;

  /**
   * The operations' handlers that API Gateway may invoke through {@link invokeRole}: an inline
   * policy of the role, so that it exists before any method uses it (RequestAuthorizer adds the
   * authorizer's function in a policy of its own, on which the API's deployment depends).
   */
  private readonly invokePolicy = new PolicyDocument();

  /**
   * The role API Gateway assumes to invoke the authorizer and the operations. An IAM role and not
   * Lambda permissions: a permission's `SourceArn` for API Gateway is built with `Fn::Join`, which
   * Control Tower's ct-lambda-pr-2 cannot read in a template (docs/operations.md, "Governance").
   */
  private readonly invokeRole: Role;

  private readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: PetstoreApiProps) {
    super(scope, id);
    const { stackName } = Stack.of(this);
    this.accessLogs = stageLogGroup(this, 'AccessLogs', props.logs);
    const executeApiEndpoint =
      props.domain === undefined || props.domain.executeApiEndpoint === true;
    this.restApi = createRestApi(this, stackName, this.accessLogs, {
      webAcl: props.webAcl !== undefined,
      executeApiEndpoint,
    });
    executionLogGroup(this, this.restApi, API_STAGE_NAME, props.logs);
    if (props.domain) {
      this.domain = new ApiDomain(this, 'Domain', { ...props.domain, restApi: this.restApi });
    }
    this.url = this.domain?.url ?? this.restApi.url;
    this.regionalUrl = executeApiEndpoint ? this.restApi.url : this.url;
    this.invokeRole = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      inlinePolicies: { Invoke: this.invokePolicy },
    });
    this.authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: props.authorizerFunction,
      assumeRole: this.invokeRole,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });
    Validations.of(this.authorizer).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(props.authorizerFunction.node.defaultChild as CfnElement)}.Arn>:*]`,
      reason:
        "The invoke role's policy that RequestAuthorizer adds for its function: the function and its versions, which only this stack publishes.",
    });
    for (const path of resourcePaths().keys()) this.addMethodNotAllowed(path);
    addGatewayResponses(this.restApi, GATEWAY_RESPONSES);
    this.usagePlans = new Map(PLAN_IDS.map((planId) => [planId, this.addUsagePlan(planId)]));
    if (props.webAcl) {
      this.webAcl = new ApiWebAcl(this, 'WebAcl', {
        stage: this.restApi.deploymentStage,
        ipRateLimit: props.webAcl.ipRateLimit,
      });
    }

    this.serverErrorsAlarm = alarmOnSum(
      this,
      'ServerErrors',
      this.restApi.deploymentStage.metricServerError(),
      'API 5XX responses',
    );
    const failures = new MetricFilter(this, 'AuthorizerFailuresFilter', {
      logGroup: this.accessLogs,
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_FAILURE'),
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
      ),
      metricNamespace: METRICS_NAMESPACE,
      metricName: 'AuthorizerFailures',
      metricValue: '1',
      dimensions: { ApiId: '$.apiId' },
    });
    this.authorizerFailures = failures.metric({
      dimensionsMap: { ApiId: this.restApi.restApiId },
    });
    alarmOnSum(this, 'AuthorizerFailures', this.authorizerFailures, 'authorizer failures');
    const latency = props.latencyP99Threshold ?? Duration.seconds(1);
    this.restApi.deploymentStage
      .metricLatency({ statistic: 'p99', period: ALARM_PERIOD })
      .createAlarm(this, 'LatencyP99Alarm', {
        alarmDescription: `${stackName}: API latency p99 at or above ${latency.toMilliseconds()} ms for 15 minutes`,
        threshold: latency.toMilliseconds(),
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.addOutputs();
  }

  /**
   * The stack's outputs of the API: each usage plan's id (`usagePlanOutputName`), `ApiBaseUrl`,
   * `RegionalApiBaseUrl`, `RestApiId`, and with a domain `RegionalDomainName` (and with latency
   * records `HealthCheckId`).
   */
  private addOutputs(): void {
    const stack = Stack.of(this);
    for (const [planId, usagePlan] of this.usagePlans) {
      new CfnOutput(stack, usagePlanOutputName(planId), { value: usagePlan.usagePlanId });
    }
    new CfnOutput(stack, STACK_OUTPUTS.apiBaseUrl, { value: this.url });
    new CfnOutput(stack, STACK_OUTPUTS.regionalApiBaseUrl, { value: this.regionalUrl });
    const { domain } = this;
    if (domain) {
      const value = domain.domain.domainNameAliasDomainName;
      new CfnOutput(stack, STACK_OUTPUTS.regionalDomainName, { value });
    }
    if (domain?.healthCheck) {
      new CfnOutput(stack, STACK_OUTPUTS.healthCheckId, {
        value: domain.healthCheck.healthCheckId,
      });
    }
    new CfnOutput(stack, STACK_OUTPUTS.restApiId, { value: this.restApi.restApiId });
  }

  /**
   * Serves `route` with `handler` (Lambda proxy integration, invoked through the API's invoke
   * role), behind the authorizer and a required API key. Pass an alias to let CodeDeploy shift
   * traffic between versions: API Gateway then invokes the alias, and may invoke only it.
   */
  addOperation(route: RouteDefinition, handler: IFunction): void {
    this.allowInvoke(handler);
    const integration = invokedThrough(this.invokeRole, handler);
    this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, {
      authorizer: this.authorizer,
      apiKeyRequired: true,
      operationName: route.operationId,
    });
  }

  /**
   * Serves `route` with `handler` without the authorizer or an API key: a method whose function
   * checks a signature itself (the leaked-key endpoint, GitHub's), outside the usage plans.
   */
  addSignedMethod(
    route: { readonly path: string; readonly method: string; readonly operationId: string },
    handler: IFunction,
  ): void {
    this.allowInvoke(handler);
    const method = this.restApi.root
      .resourceForPath(route.path)
      .addMethod(route.method, invokedThrough(this.invokeRole, handler), {
        authorizationType: AuthorizationType.NONE,
        operationName: route.operationId,
      });
    const reason =
      'GitHub\'s secret scanning calls it with no credential of ours: the function verifies GitHub\'s ECDSA signature of the body before it reads a token, and answers 401 otherwise (docs/operations.md, "Leaked keys").';
    Validations.of(method).acknowledge(
      { id: 'AwsSolutions-APIG4', reason },
      { id: 'AwsSolutions-COG4', reason },
    );
  }

  /** Lets the invoke role invoke `handler` (that ARN alone: an alias, not its function). */
  private allowInvoke(handler: IFunction): void {
    this.invokePolicy.addStatements(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [handler.functionArn] }),
    );
  }

  private addUsagePlan(planId: StandardPlanId): UsagePlan {
    const plan = PLANS[planId];
    const settings = usagePlanSettings(plan);
    return this.restApi.addUsagePlan(`UsagePlan${plan.name}`, {
      name: standardUsagePlanName(Stack.of(this).stackName, planId),
      description:
        `${plan.name} plan: ${plan.perMinute} requests per minute and ${plan.perDay} per day, ` +
        `enforced by the functions. This usage plan is the edge backstop at ${BACKSTOP_FACTOR}x: ` +
        `burst ${settings.burstLimit}, ${settings.quotaPerDay} requests per day.`,
      throttle: { rateLimit: settings.rateLimit, burstLimit: settings.burstLimit },
      quota: { limit: settings.quotaPerDay, period: Period.DAY },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });
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
    const method = this.restApi.root.resourceForPath(path).addMethod(
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
}
