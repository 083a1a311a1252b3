/**
 * The stage's admin API (issue 39; docs/admin-openapi.yaml): a second RestApi, REGIONAL, on its
 * own `execute-api` hostname and stage `admin`, never mapped to the public API's custom domain;
 * every method AWS_IAM-authorized; a resource policy admitting only the stage's account, or only
 * the role ARNs the stage lists.
 */
import { type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  AccountRootPrincipal,
  AnyPrincipal,
  Effect,
  PolicyDocument,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import { ADMIN_ROUTES, type AdminRouteDefinition } from '../admin-routes.ts';
import { ADMIN_GATEWAY_RESPONSES } from '../gateway-responses.ts';
import { BINARY_MEDIA_TYPES } from '../routes.ts';
import { accessLogFormat } from './access-log.ts';
import { alarmOnSum } from './alarms.ts';
import type { PetstoreApi } from './petstore-api.ts';
import { LOG_RETENTION, ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** An IAM role's ARN: `arn:<partition>:iam::<12-digit account>:role/<path and name>`. */
export const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/[\w+=,.@/-]{1,512}$/;

/** Props of {@link AdminApi}. */
export interface AdminApiProps {
  /** What happens to the access log group when the stack goes. */
  readonly removalPolicy: RemovalPolicy;

  /**
   * The only IAM roles (ARNs, of the stage's account) that may call the admin API; any other
   * principal of the account is denied by the resource policy, whatever its own policy says.
   *
   * @default - every principal of the stage's account whose own policy allows execute-api:Invoke
   */
  readonly roleArns?: readonly string[];
}

/**
 * The admin RestApi (`{stack}-admin`, stage `admin`, X-Ray tracing, JSON access logs to its own
 * group), every method AWS_IAM, Error-shaped gateway responses (`ADMIN_GATEWAY_RESPONSES`), and a
 * resource policy: Allow `execute-api:Invoke` to the stage's account; Deny it to any principal of
 * another account (`aws:PrincipalAccount`); with `roleArns`, Deny it to every principal whose
 * `aws:PrincipalArn` is not one of them (a same-account caller is otherwise allowed by its own
 * policy alone). An alarm on its 5XX answers. Operations are added with {@link addOperation}.
 *
 * @throws Error when a role ARN is not an IAM role's ARN, or names another account than the
 *   stack's (when the stack's account is known).
 */
export class AdminApi extends Construct {
  /** The RestApi. */
  readonly restApi: RestApi;

  /** The base URL, ending in `/admin/`. */
  readonly url: string;

  /** Fires on the first 5XX answer in five minutes. */
  readonly serverErrorsAlarm: Alarm;

  constructor(scope: Construct, id: string, props: AdminApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const roleArns = validRoleArns(props.roleArns ?? [], stack.account);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: props.removalPolicy,
    });
    this.restApi = new RestApi(this, 'Default', {
      restApiName: `${stack.stackName}-admin`,
      description: 'Petstore admin API (docs/admin-openapi.yaml)',
      cloudWatchRole: false,
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      defaultMethodOptions: { authorizationType: AuthorizationType.IAM },
      policy: resourcePolicy(stack.account, roleArns),
      deployOptions: {
        stageName: ADMIN_API_STAGE_NAME,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
      },
    });
    this.restApi.node.tryRemoveChild('Endpoint');
    this.url = this.restApi.url;
    for (const response of ADMIN_GATEWAY_RESPONSES) {
      this.restApi.addGatewayResponse(response.type, {
        type: ResponseType.of(response.type),
        statusCode: String(response.body.status),
        templates: { 'application/json': JSON.stringify(response.body) },
        responseHeaders: { 'Content-Type': "'application/json'" },
      });
    }
    this.serverErrorsAlarm = alarmOnSum(
      this,
      'ServerErrors',
      this.restApi.deploymentStage.metricServerError(),
      'admin API 5XX responses',
    );
    Validations.of(this.restApi).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'The admin functions validate every request with valibot so that each 400 carries a catalogue code and names the field.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'Every method needs a SigV4 signature of a principal of the stage account (resource policy); a web ACL would filter nothing the policy admits.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Access logs record every request with its status, error type and caller; execution logs would go to a log group API Gateway creates outside the stack.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'Callers are IAM principals authorized by SigV4 (AWS_IAM), not Cognito users.',
      },
    );
  }

  /** Serves `route` with `handler` (Lambda proxy integration), AWS_IAM-authorized. */
  addOperation(route: AdminRouteDefinition, handler: IFunction): void {
    this.restApi.root
      .resourceForPath(route.path)
      .addMethod(route.method, new LambdaIntegration(handler), {
        authorizationType: AuthorizationType.IAM,
        operationName: route.operationId,
      });
  }
}

/**
 * The admin API's resource policy (see {@link AdminApi}); `execute-api:/*` is every method of
 * every stage of this API.
 */
function resourcePolicy(account: string, roleArns: readonly string[]): PolicyDocument {
  const invoke = { actions: ['execute-api:Invoke'], resources: ['execute-api:/*'] };
  return new PolicyDocument({
    statements: [
      new PolicyStatement({ ...invoke, principals: [new AccountRootPrincipal()] }),
      new PolicyStatement({
        ...invoke,
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        conditions: { StringNotEquals: { 'aws:PrincipalAccount': account } },
      }),
      ...(roleArns.length > 0
        ? [
            new PolicyStatement({
              ...invoke,
              effect: Effect.DENY,
              principals: [new AnyPrincipal()],
              conditions: { StringNotEquals: { 'aws:PrincipalArn': [...roleArns] } },
            }),
          ]
        : []),
    ],
  });
}

/**
 * `arns`, checked.
 * @throws Error naming the first that is not an IAM role's ARN or is in another account.
 */
function validRoleArns(arns: readonly string[], account: string): string[] {
  for (const arn of arns) {
    const match = ROLE_ARN.exec(arn);
    if (!match) {
      throw new Error(
        `admin role ARNs must be IAM role ARNs, arn:aws:iam::<account>:role/<name>; got '${arn}'`,
      );
    }
    if (!Token.isUnresolved(account) && match[1] !== account) {
      throw new Error(`admin role ${arn} is not in the stage's account ${account}`);
    }
  }
  return [...arns];
}

/**
 * The settings the admin functions get beside the tables' names: the audit retention, and the
 * public API's stack name, RestApi id and each standard plan's usage plan id, whose API keys
 * they manage (`USAGE_PLAN_ID_FREE`, …).
 */
export function adminSettings(
  publicApi: PetstoreApi,
  retentionDays: number,
): Record<string, string> {
  return {
    AUDIT_RETENTION_DAYS: String(retentionDays),
    PETSTORE_STACK_NAME: Stack.of(publicApi).stackName,
    PUBLIC_REST_API_ID: publicApi.restApi.restApiId,
    ...Object.fromEntries(
      [...publicApi.usagePlans].map(([planId, plan]) => [
        `USAGE_PLAN_ID_${planId.toUpperCase()}`,
        plan.usagePlanId,
      ]),
    ),
  };
}

/**
 * One {@link ServiceFunction} per admin route at `scope` (the stack: construct ids from the
 * rows), each with an alarm on its errors and served by `api`. Plain functions, no CodeDeploy
 * canary: admin calls are too few for a canary's alarms to judge a version (docs/operations.md).
 *
 * @returns The functions, in the route table's order.
 */
export function addAdminFunctions(
  scope: Construct,
  api: AdminApi,
  props: Omit<ServiceFunctionProps, 'definition'>,
): ServiceFunction[] {
  return ADMIN_ROUTES.map((route) => {
    const admin = new ServiceFunction(scope, route.constructId, { ...props, definition: route });
    alarmOnSum(admin, 'Errors', admin.function.metricErrors(), `${route.constructId} errors`);
    api.addOperation(route, admin.function);
    return admin;
  });
}
