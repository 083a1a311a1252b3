/**
 * The portal API (docs/portal-openapi.yaml): a RestApi of its own, stage `portal`, every method
 * behind a Cognito authorizer on the portal's user pool, CORS for the portal's origin alone.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  CognitoUserPoolsAuthorizer,
  IdentitySource,
  type IResource,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  PORTAL_API_STAGE_NAME,
  PORTAL_CORS,
  PORTAL_OPERATIONS,
} from '../../shared/portal-operations.ts';
import { PORTAL_GATEWAY_RESPONSES } from '../gateway-responses.ts';
import type { PortalRouteDefinition } from '../portal-routes.ts';
import { alarmOnSum } from './alarms.ts';
import type { ApiWebAcl } from './api-web-acl.ts';
import { addGatewayResponses, invokedThrough, serviceRestApi } from './rest-api.ts';
import type { StageLogs } from './stage-key.ts';

/** Props of {@link PortalApi}. */
export interface PortalApiProps {
  /** How the access and execution log groups keep their events (the stage's key, retention). */
  readonly logs: StageLogs;

  /**
   * The public API's regional web ACL, which then guards the portal API's stage too (its managed
   * rules and its rate per address).
   *
   * @default - no web ACL, as the public API's stage in staging
   */
  readonly webAcl?: ApiWebAcl;
}

/**
 * The portal RestApi (`{stack}-portal`, REGIONAL, stage `portal`, X-Ray tracing, execution logs
 * at ERROR, JSON access logs), the portal's gateway responses (`PORTAL_GATEWAY_RESPONSES`), an
 * alarm on its 5XX answers and, given one, the public API's web ACL. {@link allowOrigin} and {@link authorizeWith} complete it once the
 * portal's site and user pool exist (they name the API, which comes first); operations are added
 * with {@link addOperation}.
 */
export class PortalApi extends Construct {
  /** The RestApi. */
  readonly restApi: RestApi;

  /**
   * The base URL clients call, `https://<id>.execute-api.<region>.<suffix>/portal`, no trailing
   * slash (`config.json`'s `portalApiUrl`).
   */
  readonly url: string;

  /** The origin of {@link url}, which the portal page's CSP admits. */
  readonly origin: string;

  /** Fires on the first 5XX answer in five minutes. */
  readonly serverErrorsAlarm: Alarm;

  /** The functions API Gateway may invoke through {@link invokeRole} (as the other APIs'). */
  private readonly invokePolicy = new PolicyDocument();

  /** The role API Gateway assumes to invoke the portal functions (no Lambda permissions). */
  private readonly invokeRole: Role;

  private authorizer?: CognitoUserPoolsAuthorizer;

  private corsOrigin?: string;

  constructor(scope: Construct, id: string, props: PortalApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.restApi = serviceRestApi(this, {
      restApiName: `${stack.stackName}-portal`,
      description: 'Petstore portal API (docs/portal-openapi.yaml)',
      stageName: PORTAL_API_STAGE_NAME,
      logs: props.logs,
    });
    this.origin = `https://${this.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.url = `${this.origin}/${PORTAL_API_STAGE_NAME}`;
    this.invokeRole = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      inlinePolicies: { Invoke: this.invokePolicy },
    });
    this.serverErrorsAlarm = alarmOnSum(
      this,
      'ServerErrors',
      this.restApi.deploymentStage.metricServerError(),
      'portal API 5XX responses',
    );
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'The portal functions validate every request with valibot so that each 400 carries a catalogue code and names the field.',
    });
    if (props.webAcl) {
      props.webAcl.associate('PortalApiAssociation', this.restApi.deploymentStage);
    } else {
      Validations.of(this.restApi).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          "No web ACL because this stage's webAcl setting is off, as on its public API (the default only in staging); every method still needs an ID token of the stage's user pool.",
      });
    }
  }

  /**
   * Admits `origin` (the portal's, `https://host`) in CORS: every gateway response carries it, and
   * every resource answers a preflight (OPTIONS, no authorization: browsers send none) allowing
   * the API's methods with `PORTAL_CORS`'s headers, kept `PORTAL_CORS.maxAgeSeconds`.
   */
  allowOrigin(origin: string): void {
    this.corsOrigin = origin;
    addGatewayResponses(this.restApi, PORTAL_GATEWAY_RESPONSES, {
      'Access-Control-Allow-Origin': origin,
    });
  }

  /**
   * Puts every method behind a Cognito authorizer of `userPool`'s (identity source the
   * Authorization header; with no scopes on a method, API Gateway takes the pool's ID token,
   * checks its signature, issuer and expiry, and caches the answer 5 minutes per token).
   */
  authorizeWith(userPool: IUserPool): void {
    this.authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      cognitoUserPools: [userPool],
      identitySource: IdentitySource.header('Authorization'),
    });
  }

  /**
   * Serves `route` with `handler` (a Lambda proxy integration through the invoke role, as the
   * other APIs'), behind the Cognito authorizer.
   *
   * @throws Error when {@link allowOrigin} or {@link authorizeWith} has not been called.
   */
  addOperation(route: PortalRouteDefinition, handler: IFunction): void {
    const { authorizer, corsOrigin } = this;
    if (!authorizer || !corsOrigin) {
      throw new Error('PortalApi: allowOrigin and authorizeWith come before addOperation');
    }
    this.invokePolicy.addStatements(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [handler.functionArn] }),
    );
    const resource = this.resourceFor(route.path, corsOrigin);
    resource.addMethod(route.method, invokedThrough(this.invokeRole, handler), {
      authorizer,
      authorizationType: AuthorizationType.COGNITO,
      operationName: route.operationId,
    });
  }

  /** The resource of `path`, each new one on the way with its CORS preflight. */
  private resourceFor(path: string, origin: string): IResource {
    let resource: IResource = this.restApi.root;
    for (const part of path.split('/').filter(Boolean)) {
      const child = resource.getResource(part);
      if (child) {
        resource = child;
        continue;
      }
      resource = resource.addResource(part, {
        defaultCorsPreflightOptions: {
          allowOrigins: [origin],
          allowMethods: [...new Set(PORTAL_OPERATIONS.map((operation) => operation.method))],
          allowHeaders: [...PORTAL_CORS.allowHeaders],
          maxAge: Duration.seconds(PORTAL_CORS.maxAgeSeconds),
        },
      });
      const preflight = resource.node.findChild('OPTIONS');
      Validations.of(preflight).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'A CORS preflight (OPTIONS): a mock answering which origin, methods and headers the API admits; browsers send it without credentials, and it reaches no function.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason:
            'A CORS preflight (OPTIONS): browsers send it without the ID token, so no authorizer can stand before it; it reaches no function.',
        },
      );
    }
    return resource;
  }
}
