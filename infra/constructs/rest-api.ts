/**
 * The stage's RestApis as their constructs build on them: the public API's (endpoint, stage `v1`,
 * tracing, execution and access logs, and the cdk-nag findings it acknowledges), the admin and
 * portal APIs' ({@link serviceRestApi}), their Error-shaped gateway responses and their Lambda
 * integrations through an invoke role.
 */
import { Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AwsIntegration,
  type CorsOptions,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type MethodOptions,
  ResponseType,
  RestApi,
  type StageOptions,
} from 'aws-cdk-lib/aws-apigateway';
import type { IRole, PolicyDocument } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import type { GatewayResponseDefinition } from '../gateway-responses.ts';
import { BINARY_MEDIA_TYPES } from '../routes.ts';
import { accessLogFormat } from './access-log.ts';
import { type StageLogs, stageLogGroup } from './stage-key.ts';

/**
 * A stage's logging as Control Tower's ct-apigateway-pr-1 asks: execution logs of every method at
 * ERROR, no data tracing (which would log whole requests, their Authorization header included),
 * X-Ray, and JSON access logs to `accessLogs`.
 */
function stageLogging(stageName: string, accessLogs: LogGroup): StageOptions {
  return {
    stageName,
    tracingEnabled: true,
    loggingLevel: MethodLoggingLevel.ERROR,
    dataTraceEnabled: false,
    accessLogDestination: new LogGroupLogDestination(accessLogs),
    accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
  };
}

/**
 * The execution log group API Gateway writes `restApi`'s stage to, made first by the stack (API
 * Gateway would make it unencrypted and never expiring), with the stage's key and retention.
 */
export function executionLogGroup(
  scope: Construct,
  restApi: RestApi,
  stageName: string,
  logs: StageLogs,
): LogGroup {
  const group = stageLogGroup(scope, 'ExecutionLogs', logs, {
    logGroupName: `API-Gateway-Execution-Logs_${restApi.restApiId}/${stageName}`,
  });
  restApi.deploymentStage.node.addDependency(group);
  return group;
}

/** What {@link serviceRestApi} builds a RestApi from. */
export interface ServiceRestApiProps {
  readonly restApiName: string;
  readonly description: string;
  /** Its stage, the last segment of its base URL (`admin`, `portal`). */
  readonly stageName: string;
  /** How its access and execution log groups keep their events. */
  readonly logs: StageLogs;
  /** Its resource policy. @default - none */
  readonly policy?: PolicyDocument;
  /** The methods' authorization, unless a method says otherwise. @default - none */
  readonly defaultMethodOptions?: MethodOptions;
  /** CORS preflight (OPTIONS) on every resource. @default - none */
  readonly defaultCorsPreflightOptions?: CorsOptions;
}

/**
 * A RestApi of the stage beside the public one (the admin API's, the portal API's): REGIONAL, on
 * its own `execute-api` hostname and stage, logged as {@link stageLogging}, its access log group
 * `AccessLogs`, the RestApi `Default` and its execution log group `ExecutionLogs`, all children
 * of `scope`.
 */
export function serviceRestApi(scope: Construct, props: ServiceRestApiProps): RestApi {
  const accessLogs = stageLogGroup(scope, 'AccessLogs', props.logs);
  const restApi = new RestApi(scope, 'Default', {
    restApiName: props.restApiName,
    description: props.description,
    cloudWatchRole: false,
    endpointTypes: [EndpointType.REGIONAL],
    binaryMediaTypes: [...BINARY_MEDIA_TYPES],
    defaultMethodOptions: props.defaultMethodOptions,
    defaultCorsPreflightOptions: props.defaultCorsPreflightOptions,
    policy: props.policy,
    deployOptions: stageLogging(props.stageName, accessLogs),
  });
  restApi.node.tryRemoveChild('Endpoint');
  executionLogGroup(scope, restApi, props.stageName, props.logs);
  return restApi;
}

/**
 * Header values as API Gateway mapping expressions: static values in single quotes.
 *
 * @param headers Header name → plain value, e.g. `{ Allow: 'GET, POST' }`.
 * @param prefix Prepended to each name, e.g. `method.response.header.`.
 */
export function quoteHeaders(
  headers: Readonly<Record<string, string>>,
  prefix = '',
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [`${prefix}${name}`, `'${value}'`]),
  );
}

/**
 * One gateway response per row of `responses`: its status, its Error body as JSON, its own
 * headers and `headers` (e.g. the portal API's CORS origin), and `Content-Type: application/json`.
 */
export function addGatewayResponses(
  restApi: RestApi,
  responses: readonly GatewayResponseDefinition[],
  headers: Readonly<Record<string, string>> = {},
): void {
  for (const response of responses) {
    restApi.addGatewayResponse(response.type, {
      type: ResponseType.of(response.type),
      statusCode: String(response.body.status),
      templates: { 'application/json': JSON.stringify(response.body) },
      responseHeaders: quoteHeaders({
        ...response.headers,
        ...headers,
        'Content-Type': 'application/json',
      }),
    });
  }
}

/**
 * The public RestApi (REGIONAL endpoint) with its `v1` stage, logged as {@link stageLogging}, as
 * the `Default` child of `scope`.
 *
 * @param options.webAcl Whether a web ACL guards the stage (otherwise cdk-nag's APIG3 is
 *   acknowledged).
 * @param options.executeApiEndpoint Whether clients may call the `execute-api` address.
 */
export function createRestApi(
  scope: Construct,
  name: string,
  accessLogs: LogGroup,
  { webAcl, executeApiEndpoint }: { webAcl: boolean; executeApiEndpoint: boolean },
): RestApi {
  const api = new RestApi(scope, 'Default', {
    restApiName: name,
    description: 'Petstore API (docs/openapi.yaml)',
    // Left out, not false, when kept: the template of a stage without a domain stays as it was.
    disableExecuteApiEndpoint: !executeApiEndpoint || undefined,
    cloudWatchRole: false,
    apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    endpointTypes: [EndpointType.REGIONAL],
    binaryMediaTypes: [...BINARY_MEDIA_TYPES],
    deployOptions: stageLogging(API_STAGE_NAME, accessLogs),
  });
  // RestApi adds an `Endpoint` output under a hashed name; ApiBaseUrl is the one ops tools read.
  api.node.tryRemoveChild('Endpoint');
  if (!webAcl) {
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        "No web ACL because this stage's webAcl setting is off, the default only in staging, whose traffic is the team's own tests (production has one by default: AWS managed rules and a per-IP rate rule). Every method still needs a key checked by the authorizer.",
    });
  }
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'The functions validate every request with valibot so that each 400 carries a catalogue code and names the field; an API Gateway validator would answer with its own message.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'Clients authenticate with bearer API keys checked by a Lambda REQUEST authorizer (docs/api.md, "Authentication"); there are no Cognito users.',
    },
  );
  return api;
}

/**
 * A Lambda proxy integration of `handler` that API Gateway invokes through `role`:
 * LambdaIntegration's own, less the Lambda permissions it adds (the public and admin APIs').
 */
export function invokedThrough(role: IRole, handler: IFunction): AwsIntegration {
  return new AwsIntegration({
    proxy: true,
    service: 'lambda',
    path: `2015-03-31/functions/${handler.functionArn}/invocations`,
    options: { credentialsRole: role },
  });
}
