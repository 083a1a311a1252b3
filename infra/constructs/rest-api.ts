/**
 * The RestApi of the stage as {@link PetstoreApi} builds on it: endpoint, stage `v1`, tracing,
 * execution and access logs, and the cdk-nag findings it acknowledges.
 */
import { Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AwsIntegration,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { BINARY_MEDIA_TYPES } from '../routes.ts';
import { accessLogFormat } from './access-log.ts';

/**
 * The RestApi (REGIONAL endpoint) with its `v1` stage, X-Ray tracing, execution logs at ERROR
 * without data tracing and JSON access logs, as the `Default` child of `scope`.
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
    deployOptions: {
      stageName: API_STAGE_NAME,
      tracingEnabled: true,
      // Execution logging of every method (Control Tower's ct-apigateway-pr-1), errors only; no
      // data tracing, which would log whole requests, their Authorization header included.
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
    },
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
