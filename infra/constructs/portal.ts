/**
 * A stage's developer portal in its home region (docs/operations.md, "Portal"): the user pool,
 * the portal API and its functions, the page's site and what it is configured with.
 */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { PORTAL_ROUTES } from '../portal-routes.ts';
import { STACK_OUTPUTS, type StageName } from '../stages.ts';
import { type KeyServiceProps, keyServiceFunctions } from './admin-api.ts';
import { alarmOnSum } from './alarms.ts';
import { PortalApi } from './portal-api.ts';
import {
  managedLoginOrigin,
  PortalUserPool,
  type PortalUserPoolProps,
} from './portal-user-pool.ts';
import { type PortalDomainOptions, PortalSite } from './portal-website.ts';
import { ServiceFunction } from './service-function.ts';

/** What an operator sets for a stage's portal (infra/portal-settings.ts reads them). */
export interface PortalOptions
  extends Pick<PortalUserPoolProps, 'mfaRequired' | 'invitationOnly' | 'emailFrom'> {
  /**
   * The active keys an account may hold (`petstore:<stage>:portalKeyLimit`), given to the portal
   * functions as `PORTAL_KEY_LIMIT`.
   *
   * @default - the portal functions' own default, 5
   */
  readonly keyLimit?: number;

  /**
   * Where a client asks about the Enterprise plan (`petstore:<stage>:portalEnterpriseContactUrl`),
   * given to the portal functions as `PORTAL_ENTERPRISE_CONTACT_URL`.
   *
   * @default - the portal functions' own default
   */
  readonly enterpriseContactUrl?: string;

  /**
   * The portal's own host name, on the stage's domain.
   *
   * @default - CloudFront's `*.cloudfront.net` name
   */
  readonly domain?: PortalDomainOptions;
}

/** Props of {@link Portal}. */
export interface PortalProps extends PortalOptions, KeyServiceProps {
  /** The stage. */
  readonly stage: StageName;

  /** ARN of the stage's CloudFront-scope web ACL (its `PortalEdgeStack`, in us-east-1). */
  readonly webAclArn: string;
}

/**
 * The portal: its {@link PortalApi} (`Api`, behind the public API's web ACL when it has one), its
 * {@link PortalSite} (`Site`, whose CSP admits the portal API, Cognito's endpoints and the
 * managed login), its {@link PortalUserPool} (`Accounts`, the site's URL as the client's
 * callback), and one {@link ServiceFunction} per row of `PORTAL_ROUTES` at the stack's scope
 * (construct ids from the rows, as the admin functions'), each with an alarm on its errors and exactly its row's grants (`userPoolAccess` on this
 * pool alone), plain functions as the admin API's. The functions get what `keyServiceFunctions`
 * gives and `PORTAL_ISSUER`, `PORTAL_JWKS_URI`, `PORTAL_CLIENT_ID`, `PORTAL_USER_POOL_ID`,
 * `PORTAL_ORIGIN` (the one CORS origin) and, when set, `PORTAL_KEY_LIMIT` and
 * `PORTAL_ENTERPRISE_CONTACT_URL`. The site's
 * `config.json`: the issuer, the client id, the portal API's URL, the API reference and, unless
 * invitation only, the sign-up page. Outputs `PortalUrl`, `PortalApiBaseUrl`,
 * `PortalUserPoolId`, `PortalUserPoolClientId`, `PortalBucketName` and `PortalDistributionId`.
 */
export class Portal extends Construct {
  /** The portal API. */
  readonly api: PortalApi;

  /** The page's bucket and distribution. */
  readonly site: PortalSite;

  /** The user pool, its managed login and app client. */
  readonly accounts: PortalUserPool;

  /** The portal API's functions, in the route table's order. */
  readonly functions: readonly ServiceFunction[];

  constructor(scope: Construct, id: string, props: PortalProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.api = new PortalApi(this, 'Api', { logs: props.logs, webAcl: props.publicApi.webAcl });
    this.site = new PortalSite(this, 'Site', {
      logs: props.logs,
      webAclArn: props.webAclArn,
      domain: props.domain,
      origins: {
        connect: [
          this.api.origin,
          `https://cognito-idp.${stack.region}.${stack.urlSuffix}`,
          managedLoginOrigin(this, props.stage),
        ],
      },
    });
    this.accounts = new PortalUserPool(this, 'Accounts', {
      stage: props.stage,
      portalUrl: this.site.url,
      mfaRequired: props.mfaRequired,
      invitationOnly: props.invitationOnly,
      emailFrom: props.emailFrom,
    });
    const { userPool, client, issuer } = this.accounts;
    this.api.allowOrigin(this.site.origin);
    this.api.authorizeWith(userPool);
    const keyService = keyServiceFunctions(stack, props);
    const environment = {
      ...keyService.environment,
      PORTAL_ISSUER: issuer,
      PORTAL_JWKS_URI: `${issuer}/.well-known/jwks.json`,
      PORTAL_CLIENT_ID: client.userPoolClientId,
      PORTAL_USER_POOL_ID: userPool.userPoolId,
      PORTAL_ORIGIN: this.site.origin,
      ...(props.keyLimit !== undefined && { PORTAL_KEY_LIMIT: String(props.keyLimit) }),
      ...(props.enterpriseContactUrl !== undefined && {
        PORTAL_ENTERPRISE_CONTACT_URL: props.enterpriseContactUrl,
      }),
    };
    this.functions = PORTAL_ROUTES.map((route) => {
      const portal = new ServiceFunction(stack, route.constructId, {
        tables: props.tables,
        secrets: props.secrets,
        logs: props.logs,
        sourceMaps: props.sourceMaps,
        ...keyService,
        environment,
        definition: route,
      });
      const actions = route.userPoolAccess ?? [];
      if (actions.length > 0) {
        portal.function.addToRolePolicy(
          new PolicyStatement({ actions: [...actions], resources: [userPool.userPoolArn] }),
        );
      }
      alarmOnSum(portal, 'Errors', portal.function.metricErrors(), `${route.constructId} errors`);
      this.api.addOperation(route, portal.function);
      return portal;
    });
    this.site.deploy(
      {
        authority: issuer,
        clientId: client.userPoolClientId,
        portalApiUrl: this.api.url,
        apiReferenceUrl: this.site.referenceUrl,
        ...(this.accounts.signUpUrl && { signUpUrl: this.accounts.signUpUrl }),
      },
      props.publicApi.url,
    );
    for (const [name, value] of [
      [STACK_OUTPUTS.portalUrl, this.site.url],
      [STACK_OUTPUTS.portalApiBaseUrl, this.api.url],
      [STACK_OUTPUTS.userPoolId, userPool.userPoolId],
      [STACK_OUTPUTS.userPoolClientId, client.userPoolClientId],
      [STACK_OUTPUTS.portalBucketName, this.site.bucket.bucketName],
      [STACK_OUTPUTS.portalDistributionId, this.site.distribution.distributionId],
    ] as const) {
      new CfnOutput(stack, name, { value });
    }
  }
}
