/**
 * The portal's accounts and API in each stage's template (issue 48, items 1 and 3), with no
 * portal setting: the user pool (e-mail sign-in verified by a code, passwords of 12 or more,
 * optional TOTP, self sign-up, deletion protection and Retain in production), its managed login
 * and app client (no secret, the code grant, the portal's URL); the portal API behind a Cognito
 * authorizer of that pool, CORS for the portal's origin alone, each function with exactly its
 * row's grants, its alarms and logs, the public API's web ACL where the stage has one.
 */
import { describe, expect, it } from 'vitest';
import { PORTAL_PASSWORD_MIN_LENGTH } from '../../infra/constructs/portal-user-pool.ts';
import { PORTAL_GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { PORTAL_ROUTES } from '../../infra/portal-routes.ts';
import { STACK_OUTPUTS, STAGES } from '../../infra/stages.ts';
import {
  PORTAL_API_STAGE_NAME,
  PORTAL_CORS,
  PORTAL_OPERATIONS,
} from '../../shared/portal-operations.ts';
import { grantedPairs, rowPairs } from '../support/function-grants.ts';
import { logicalId, stageOf, synthesizeStages } from '../support/petstore-app.ts';
import { resolve } from '../support/resource-policy.ts';

synthesizeStages();

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

describe.each(STAGES)('the portal of the %s stage', (stage) => {
  const { stack, template, arnOf } = stageOf(stage);
  const resources = () => template().toJSON().Resources as Record<string, Resource>;
  const resourceAt = (path: string) => resources()[logicalId(stack(), path)] as Resource;
  const poolId = () => logicalId(stack(), 'Portal/Accounts/UserPool');
  const apiId = () => logicalId(stack(), 'Portal/Api');
  /** The portal's origin on CloudFront's own name (no portal setting). */
  const portalOrigin = () =>
    `https://getatt:${logicalId(stack(), 'Portal/Site/Distribution')}.DomainName`;
  const portalMethods = () =>
    Object.values(resources()).filter(
      (resource) =>
        resource.Type === 'AWS::ApiGateway::Method' &&
        JSON.stringify(resource.Properties.RestApiId) === JSON.stringify({ Ref: apiId() }),
    );

  describe('user pool', () => {
    it('signs accounts in by e-mail address, any case, verified by a mailed code, kept until a new one is', () => {
      expect(resourceAt('Portal/Accounts/UserPool').Properties).toMatchObject({
        UsernameAttributes: ['email'],
        UsernameConfiguration: { CaseSensitive: false },
        AutoVerifiedAttributes: ['email'],
        UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
        VerificationMessageTemplate: { DefaultEmailOption: 'CONFIRM_WITH_CODE' },
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      });
    });

    it('takes passwords of 12 characters or more, with no rule on their kinds', () => {
      expect(PORTAL_PASSWORD_MIN_LENGTH).toBe(12);
      expect(resourceAt('Portal/Accounts/UserPool').Properties.Policies).toEqual({
        PasswordPolicy: {
          MinimumLength: 12,
          RequireLowercase: false,
          RequireNumbers: false,
          RequireSymbols: false,
          RequireUppercase: false,
        },
      });
    });

    it('offers TOTP MFA, never SMS, and lets anyone sign up, mailing through Cognito by default', () => {
      expect(resourceAt('Portal/Accounts/UserPool').Properties).toMatchObject({
        MfaConfiguration: 'OPTIONAL',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
        EmailConfiguration: { EmailSendingAccount: 'COGNITO_DEFAULT' },
        UserPoolTier: 'ESSENTIALS',
      });
    });

    it(`is ${stage === 'production' ? 'deletion-protected and retained' : 'destroyed with the stack'}`, () => {
      const pool = resourceAt('Portal/Accounts/UserPool');
      const production = stage === 'production';
      expect(pool.Properties.DeletionProtection).toBe(production ? 'ACTIVE' : 'INACTIVE');
      expect(pool.DeletionPolicy).toBe(production ? 'Retain' : 'Delete');
    });

    it("has a managed login of Cognito's newer kind on the stage's own prefix, branded for the client", () => {
      const domain = resourceAt('Portal/Accounts/UserPool/Domain');
      expect(resolve(domain.Properties.Domain)).toBe(`petstore-${stage}-111111111111`);
      expect(domain.Properties.ManagedLoginVersion).toBe(2);
      template().hasResourceProperties('AWS::Cognito::ManagedLoginBranding', {
        UserPoolId: { Ref: poolId() },
        ClientId: { Ref: logicalId(stack(), 'Portal/Accounts/UserPool/Client') },
        UseCognitoProvidedValues: true,
      });
    });

    it("has one app client: no secret, the code grant for openid and email, the portal's URL as callback and sign-out", () => {
      const clients = Object.values(resources()).filter(
        (resource) => resource.Type === 'AWS::Cognito::UserPoolClient',
      );
      expect(clients).toHaveLength(1);
      const { Properties } = clients[0] as Resource;
      expect(Properties).toMatchObject({
        GenerateSecret: false,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ['code'],
        AllowedOAuthScopes: ['openid', 'email'],
        SupportedIdentityProviders: ['COGNITO'],
        ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
        EnableTokenRevocation: true,
        PreventUserExistenceErrors: 'ENABLED',
      });
      const urls = (key: string) => (Properties[key] as unknown[]).map(resolve);
      expect(urls('CallbackURLs')).toEqual([`${portalOrigin()}/`]);
      expect(urls('LogoutURLs')).toEqual([`${portalOrigin()}/`]);
    });
  });

  describe('portal API', () => {
    it('is a REGIONAL RestApi of its own, stage portal, traced, logged at ERROR into its own groups', () => {
      expect(resourceAt('Portal/Api').Properties.EndpointConfiguration).toEqual({
        Types: ['REGIONAL'],
      });
      const key = { 'Fn::GetAtt': [logicalId(stack(), 'Key'), 'Arn'] };
      const { Properties } = resourceAt(
        `Portal/Api/Default/DeploymentStage.${PORTAL_API_STAGE_NAME}`,
      );
      expect(Properties).toMatchObject({
        RestApiId: { Ref: apiId() },
        StageName: PORTAL_API_STAGE_NAME,
        TracingEnabled: true,
        MethodSettings: [{ LoggingLevel: 'ERROR', DataTraceEnabled: false }],
      });
      const { DestinationArn } = Properties.AccessLogSetting as Record<string, unknown>;
      expect(resolve(DestinationArn)).toContain(logicalId(stack(), 'Portal/Api/AccessLogs'));
      for (const group of ['AccessLogs', 'ExecutionLogs']) {
        expect(resourceAt(`Portal/Api/${group}`).Properties.KmsKeyId).toEqual(key);
      }
      expect(template().toJSON().Outputs[STACK_OUTPUTS.portalApiBaseUrl].Value).toBeDefined();
    });

    it('serves each route with one method behind a Cognito authorizer of the portal pool alone', () => {
      const authorizer = logicalId(stack(), 'Portal/Api/Authorizer');
      expect(resources()[authorizer]?.Properties).toMatchObject({
        Type: 'COGNITO_USER_POOLS',
        IdentitySource: 'method.request.header.Authorization',
        ProviderARNs: [{ 'Fn::GetAtt': [poolId(), 'Arn'] }],
      });
      const served = portalMethods().filter((method) => method.Properties.HttpMethod !== 'OPTIONS');
      expect(served.map((method) => method.Properties.OperationName).sort()).toEqual(
        PORTAL_ROUTES.map((route) => route.operationId).sort(),
      );
      for (const method of served) {
        expect(method.Properties).toMatchObject({
          AuthorizationType: 'COGNITO_USER_POOLS',
          AuthorizerId: { Ref: authorizer },
        });
        // An ID token, not an access token: no scopes on the method.
        expect(method.Properties.AuthorizationScopes).toBeUndefined();
      }
    });

    it("answers a CORS preflight on each path for the portal's origin alone, and every refusal names it", () => {
      const preflights = portalMethods().filter(
        (method) => method.Properties.HttpMethod === 'OPTIONS',
      );
      const paths = new Set(PORTAL_OPERATIONS.map((operation) => operation.path));
      // One per resource on the way: /account, /keys, /keys/{keyId} and its three sub-paths.
      expect(preflights).toHaveLength(new Set([...paths, '/keys']).size);
      for (const { Properties } of preflights) {
        expect(Properties.AuthorizationType).toBe('NONE');
        const integration = Properties.Integration as Record<string, unknown>;
        expect(integration.Type).toBe('MOCK');
        const [answer] = integration.IntegrationResponses as Record<string, unknown>[];
        const headers = answer?.ResponseParameters as Record<string, unknown>;
        expect(resolve(headers['method.response.header.Access-Control-Allow-Origin'])).toBe(
          `'${portalOrigin()}'`,
        );
        expect(headers['method.response.header.Access-Control-Allow-Headers']).toBe(
          `'${PORTAL_CORS.allowHeaders.join(',')}'`,
        );
      }
      const responses = Object.values(resources()).filter(
        (resource) =>
          resource.Type === 'AWS::ApiGateway::GatewayResponse' &&
          JSON.stringify(resource.Properties.RestApiId) === JSON.stringify({ Ref: apiId() }),
      );
      expect(responses.map((response) => response.Properties.ResponseType).sort()).toEqual(
        PORTAL_GATEWAY_RESPONSES.map((response) => response.type).sort(),
      );
      for (const { Properties } of responses) {
        const headers = Properties.ResponseParameters as Record<string, unknown>;
        expect(resolve(headers['gatewayresponse.header.Access-Control-Allow-Origin'])).toBe(
          `'${portalOrigin()}'`,
        );
      }
    });

    it('grants each portal function exactly the DynamoDB, API Gateway and user pool calls of its row', () => {
      for (const route of PORTAL_ROUTES) {
        const role = logicalId(stack(), `${route.constructId}/Role`);
        expect(grantedPairs(template(), role)).toEqual(rowPairs(route, arnOf));
        expect(grantedPairs(template(), role, /^cognito-idp:/)).toEqual(
          (route.userPoolAccess ?? []).map((action) => `${action} getatt:${poolId()}.Arn`),
        );
      }
      expect(PORTAL_ROUTES.some((route) => route.userPoolAccess?.length)).toBe(true);
    });

    it("tells each function the pool's issuer, keys and client, and the portal's origin", () => {
      for (const route of PORTAL_ROUTES) {
        const { Variables } = resourceAt(route.constructId).Properties.Environment as {
          Variables: Record<string, unknown>;
        };
        const issuer = `getatt:${poolId()}.ProviderURL`;
        expect(
          Object.fromEntries(Object.entries(Variables).map(([k, v]) => [k, resolve(v)])),
        ).toMatchObject({
          PORTAL_ISSUER: issuer,
          PORTAL_JWKS_URI: `${issuer}/.well-known/jwks.json`,
          PORTAL_CLIENT_ID: `ref:${logicalId(stack(), 'Portal/Accounts/UserPool/Client')}`,
          PORTAL_USER_POOL_ID: `ref:${poolId()}`,
          PORTAL_ORIGIN: portalOrigin(),
          PUBLIC_REST_API_ID: `ref:${logicalId(stack(), 'Api')}`,
        });
        expect(Variables.PORTAL_KEY_LIMIT).toBeUndefined();
      }
    });

    it('alarms on its 5XX answers and on each function’s errors and throttles', () => {
      const alarms = Object.keys(template().findResources('AWS::CloudWatch::Alarm'));
      const expected = [
        logicalId(stack(), 'Portal/Api/ServerErrorsAlarm'),
        ...PORTAL_ROUTES.flatMap((route) => [
          logicalId(stack(), `${route.constructId}/ErrorsAlarm`),
          logicalId(stack(), `${route.constructId}/ThrottlesAlarm`),
        ]),
      ];
      expect(alarms).toEqual(expect.arrayContaining(expected));
    });

    it(`is ${stage === 'production' ? "guarded by the public API's" : 'without a'} web ACL, as the public API`, () => {
      const associations = Object.values(template().findResources('AWS::WAFv2::WebACLAssociation'));
      const portalStage = {
        Ref: logicalId(stack(), `Portal/Api/Default/DeploymentStage.${PORTAL_API_STAGE_NAME}`),
      };
      const guarded = associations.filter(({ Properties }) =>
        JSON.stringify(Properties.ResourceArn).includes(portalStage.Ref),
      );
      expect(guarded).toHaveLength(stage === 'production' ? 1 : 0);
      for (const { Properties } of guarded) {
        expect(Properties.WebACLArn).toEqual({
          'Fn::GetAtt': [logicalId(stack(), 'Api/WebAcl'), 'Arn'],
        });
      }
    });
  });
});
