/**
 * The stage's admin API (issue 39; docs/admin-openapi.yaml): a second RestApi, REGIONAL, on its
 * own `execute-api` hostname and stage `admin`, never mapped to the public API's custom domain;
 * every method AWS_IAM-authorized; a resource policy admitting only the stage's account, or only
 * the role ARNs the stage lists.
 */
import { CfnOutput, Stack, Token, Validations } from 'aws-cdk-lib';
import { AuthorizationType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  AccountRootPrincipal,
  AnyPrincipal,
  Effect,
  PolicyDocument,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import { ADMIN_ROUTES, type AdminRouteDefinition } from '../admin-routes.ts';
import { ADMIN_GATEWAY_RESPONSES } from '../gateway-responses.ts';
import { regionalStackName, STACK_OUTPUTS, type StageName } from '../stages.ts';
import { alarmOnSum } from './alarms.ts';
import type { PetstoreApi } from './petstore-api.ts';
import { addGatewayResponses, invokedThrough, serviceRestApi } from './rest-api.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { StageLogs } from './stage-key.ts';

/** An IAM role's ARN: `arn:<partition>:iam::<12-digit account>:role/<path and name>`. */
export const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/[\w+=,.@/-]{1,512}$/;

/** Props of {@link AdminApi}. */
export interface AdminApiProps {
  /** How the access and execution log groups keep their events (the stage's key, retention). */
  readonly logs: StageLogs;

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

  /** The functions API Gateway may invoke through {@link invokeRole} (as PetstoreApi's). */
  private readonly invokePolicy = new PolicyDocument();

  /** The role API Gateway assumes to invoke the admin functions (no Lambda permissions). */
  private readonly invokeRole: Role;

  constructor(scope: Construct, id: string, props: AdminApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const roleArns = validRoleArns(props.roleArns ?? [], stack.account);
    this.restApi = serviceRestApi(this, {
      restApiName: `${stack.stackName}-admin`,
      description: 'Petstore admin API (docs/admin-openapi.yaml)',
      stageName: ADMIN_API_STAGE_NAME,
      logs: props.logs,
      defaultMethodOptions: { authorizationType: AuthorizationType.IAM },
      policy: resourcePolicy(stack.account, roleArns),
    });
    this.invokeRole = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      inlinePolicies: { Invoke: this.invokePolicy },
    });
    this.url = this.restApi.url;
    addGatewayResponses(this.restApi, ADMIN_GATEWAY_RESPONSES);
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
        id: 'AwsSolutions-COG4',
        reason: 'Callers are IAM principals authorized by SigV4 (AWS_IAM), not Cognito users.',
      },
    );
  }

  /**
   * Serves `route` with `handler` (a Lambda proxy integration through the invoke role, as the
   * public API's), AWS_IAM-authorized.
   */
  addOperation(route: AdminRouteDefinition, handler: IFunction): void {
    this.invokePolicy.addStatements(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [handler.functionArn] }),
    );
    const integration = invokedThrough(this.invokeRole, handler);
    this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, {
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

/** What the functions of the key service's doors (admin, portal) are built with. */
export interface KeyServiceProps extends Omit<ServiceFunctionProps, 'definition'> {
  /** The stage's public API, whose API keys and usage plans the key service manages. */
  readonly publicApi: PetstoreApi;
  /** Days an audit entry is kept (`AUDIT_RETENTION_DAYS`, output `AuditRetentionDays`). */
  readonly retentionDays: number;
  /**
   * The stage's regions, the home region (this stack's) first: the key service registers keys in
   * each region's usage plans, found by the name of its stack (`regionalStackName`). One region
   * or none (an environment-agnostic stack) is the default's.
   * @default - this stack's region alone
   */
  readonly regions?: { readonly stage: StageName; readonly names: readonly string[] };
}

/**
 * What a function changing keys through the key service gets beside `props.environment`: the
 * audit retention and the public API's stack name, RestApi id and usage plan ids
 * (`USAGE_PLAN_ID_FREE`, …), and with several regions each region's stack name
 * (`PETSTORE_REGION_STACKS`) and API Gateway grants in each (`apiGatewayRegions`).
 */
export function keyServiceFunctions(
  stack: Stack,
  { publicApi, retentionDays, regions: given, environment }: KeyServiceProps,
): Pick<ServiceFunctionProps, 'environment' | 'apiGatewayRegions'> {
  const regions = given && given.names.length > 1 ? given : undefined;
  return {
    environment: {
      ...environment,
      AUDIT_RETENTION_DAYS: String(retentionDays),
      PETSTORE_STACK_NAME: stack.stackName,
      PUBLIC_REST_API_ID: publicApi.restApi.restApiId,
      ...Object.fromEntries(
        [...publicApi.usagePlans].map(([planId, plan]) => [
          `USAGE_PLAN_ID_${planId.toUpperCase()}`,
          plan.usagePlanId,
        ]),
      ),
      ...(regions && {
        PETSTORE_REGION_STACKS: regions.names
          .map((region, at) =>
            at === 0 ? stack.stackName : regionalStackName(regions.stage, region),
          )
          .join(','),
      }),
    },
    ...(regions && { apiGatewayRegions: regions.names }),
  };
}

/** What {@link addAdmin} builds the admin API and its functions from. */
export interface AdminProps extends KeyServiceProps {
  /** The roles the admin API admits (`AdminApiProps.roleArns`). @default - the account's */
  readonly roleArns?: readonly string[];
}

/**
 * The stage's admin API (`AdminApi`) and one {@link ServiceFunction} per admin route at the
 * stack's scope (construct ids from the rows), each with an alarm on its errors; plain functions,
 * no CodeDeploy canary: admin calls are too few for a canary's alarms to judge a version
 * (docs/operations.md). The functions get what {@link keyServiceFunctions} gives. Outputs
 * `AdminApiBaseUrl` and `AuditRetentionDays`.
 *
 * @returns The admin API and its functions, in the route table's order.
 */
export function addAdmin(stack: Stack, props: AdminProps) {
  const { publicApi, roleArns, retentionDays, regions, ...functionProps } = props;
  const api = new AdminApi(stack, 'AdminApi', { logs: props.logs, roleArns });
  const keyService = keyServiceFunctions(stack, props);
  const functions = ADMIN_ROUTES.map((route) => {
    const admin = new ServiceFunction(stack, route.constructId, {
      ...functionProps,
      ...keyService,
      definition: route,
    });
    alarmOnSum(admin, 'Errors', admin.function.metricErrors(), `${route.constructId} errors`);
    api.addOperation(route, admin.function);
    return admin;
  });
  new CfnOutput(stack, STACK_OUTPUTS.adminApiBaseUrl, { value: api.url });
  new CfnOutput(stack, STACK_OUTPUTS.auditRetentionDays, { value: String(retentionDays) });
  return { api, functions };
}
