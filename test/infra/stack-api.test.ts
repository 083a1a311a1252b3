/**
 * The RestApi of both stages' stacks, synthesized with cdk.json's flags: the stage v1, binary
 * bodies, access logs, the REQUEST authorizer, every operation behind it on its function's live
 * alias, 405 mocks, the gateway responses (401, 403 insufficient_scope, 429s) and the usage plans
 * (the edge backstop of each plan); the stack outputs: test/infra/stack-outputs.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_RESPONSES,
  gatewayResponse,
  methodNotAllowed,
  QUOTA_EXCEEDED_RETRY_AFTER_SECONDS,
  THROTTLED_RETRY_AFTER_SECONDS,
} from '../../infra/gateway-responses.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, ROUTES, resourcePaths } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STAGES, stackName } from '../../infra/stages.ts';
import { BACKSTOP_FACTOR, PLAN_IDS, PLANS, usagePlanSettings } from '../../shared/plans.ts';
import { allowedMethods } from '../support/openapi-document.ts';
import {
  logicalId,
  SECRET_SCANNING_FUNCTION_ID,
  SECRET_SCANNING_KEY_ACTIONS,
  stageOf,
  synthesizeStages,
} from '../support/petstore-app.ts';

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template, apiStageRef, arnOf } = stageOf(stage);

  describe('RestApi', () => {
    /** The public RestApi (the admin API is test/infra/admin-api.test.ts's). */
    const publicApi = () => ({ Ref: logicalId(stack(), 'Api') });

    const authorizerRef = () => ({ Ref: logicalId(stack(), 'Api/Authorizer') });

    it('deploys to the stage v1 with the API key taken from the authorizer', () => {
      template().hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1' });
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        ApiKeySourceType: 'AUTHORIZER',
      });
    });

    it('passes every request body to the functions as bytes (binary media type */*)', () => {
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        BinaryMediaTypes: ['*/*'],
      });
    });

    it('writes JSON access logs to a log group of the stack', () => {
      template().hasResourceProperties('AWS::ApiGateway::Stage', {
        AccessLogSetting: {
          DestinationArn: Match.anyValue(),
          Format: Match.stringLikeRegexp('"keyId":"\\$context\\.authorizer\\.keyId"'),
        },
      });
    });

    it('has a REQUEST authorizer on the Authorization header, its result cached', () => {
      // One on the public API, beside the portal API's Cognito authorizer (portal-accounts.test.ts).
      const authorizers = template().findResources('AWS::ApiGateway::Authorizer', {
        Properties: { RestApiId: publicApi() },
      });
      expect(Object.keys(authorizers)).toEqual([logicalId(stack(), 'Api/Authorizer')]);
      template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
      });
    });

    it("puts every operation behind the authorizer and a required key, proxied to its function's live alias", () => {
      const methods = template().findResources('AWS::ApiGateway::Method', {
        Properties: { HttpMethod: Match.not('ANY'), RestApiId: publicApi() },
      });
      expect(Object.keys(methods)).toHaveLength(ROUTES.length + 1); // + the leaked-key endpoint
      for (const route of ROUTES) {
        template().hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: route.method,
          OperationName: route.operationId,
          AuthorizationType: 'CUSTOM',
          AuthorizerId: authorizerRef(),
          ApiKeyRequired: true,
          Integration: {
            Type: 'AWS_PROXY',
            Uri: {
              'Fn::Join': [
                '',
                Match.arrayWith([{ Ref: logicalId(stack(), `${route.constructId}/Live`) }]),
              ],
            },
          },
        });
      }
    });

    it('serves the leaked-key endpoint, POST /secret-scanning/github, without authorizer or key, proxied to its function', () => {
      const { method, operationId, constructId } = SECRET_SCANNING_ROUTE;
      template().hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: method,
        OperationName: operationId,
        AuthorizationType: 'NONE',
        ApiKeyRequired: Match.absent(),
        AuthorizerId: Match.absent(),
        Integration: {
          Type: 'AWS_PROXY',
          Uri: {
            'Fn::Join': [
              '',
              Match.arrayWith([{ 'Fn::GetAtt': [logicalId(stack(), constructId), 'Arn'] }]),
            ],
          },
        },
      });
    });

    it("grants the leaked-key endpoint's function the keys table's batch read, the key service's writes with the audit entry and PutEvents on the default bus; its timeout; GitHub's key list", () => {
      const id = SECRET_SCANNING_FUNCTION_ID;
      const role = JSON.stringify([{ Ref: logicalId(stack(), `${id}/Role`) }]);
      const policy = Object.values(template().findResources('AWS::IAM::Policy')).find(
        (p) => JSON.stringify(p.Properties.Roles) === role,
      );
      const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];

      const statements = policy?.Properties.PolicyDocument.Statement as { Action: unknown }[];
      const bus = ['arn:', { Ref: 'AWS::Partition' }, ':events:', { Ref: 'AWS::Region' }, ':'];

      expect(
        statements.filter(({ Action }) => JSON.stringify(Action).includes('dynamodb:')),
      ).toEqual([
        { Action: SECRET_SCANNING_KEY_ACTIONS, Effect: 'Allow', Resource: arnOf('KeysTable') },
        { Action: 'dynamodb:PutItem', Effect: 'Allow', Resource: arnOf('AuditTable') },
      ]);
      expect(statements).toContainEqual({
        Action: 'events:PutEvents',
        Effect: 'Allow',
        Resource: {
          'Fn::Join': ['', [...bus, { Ref: 'AWS::AccountId' }, ':event-bus/default']],
        },
      });
      expect(Properties.Timeout).toBe(SECRET_SCANNING_ROUTE.timeoutSeconds);
      // GitHub's list: the setting's default, unless the stage names another.
      expect(Properties.Environment.Variables.SECRET_SCANNING_KEYS_URL).toBeUndefined();
    });

    it('answers 405 with Allow from an ANY mock on every resource path', () => {
      const methods = template().findResources('AWS::ApiGateway::Method', {
        Properties: { RestApiId: publicApi() },
      });
      expect(Object.keys(methods)).toHaveLength(ROUTES.length + 1 + resourcePaths().size);
      for (const path of resourcePaths().keys()) {
        const { body } = methodNotAllowed(path);
        template().hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: 'ANY',
          AuthorizationType: 'NONE',
          Integration: {
            Type: 'MOCK',
            ContentHandling: 'CONVERT_TO_TEXT',
            IntegrationResponses: [
              {
                StatusCode: '405',
                ResponseTemplates: { 'application/json': JSON.stringify(body) },
                ResponseParameters: {
                  'method.response.header.Allow': `'${allowedMethods(path)}'`,
                  'method.response.header.Content-Type': "'application/json'",
                },
              },
            ],
          },
          MethodResponses: [Match.objectLike({ StatusCode: '405' })],
        });
      }
    });

    it('has one gateway response per GATEWAY_RESPONSES row, its status and body as in the table', () => {
      const responses = Object.values(
        template().findResources('AWS::ApiGateway::GatewayResponse', {
          Properties: { RestApiId: publicApi() },
        }),
      );
      expect(responses).toHaveLength(GATEWAY_RESPONSES.length);
      for (const row of GATEWAY_RESPONSES) {
        const response = responses.find((r) => r.Properties.ResponseType === row.type);
        const properties = response?.Properties;
        expect(properties?.StatusCode).toBe(String(row.body.status));
        expect(JSON.parse(properties?.ResponseTemplates['application/json'])).toEqual(row.body);
        expect(properties?.ResponseParameters).toEqual({
          ...Object.fromEntries(
            Object.entries(row.headers).map(([name, value]) => [
              `gatewayresponse.header.${name}`,
              `'${value}'`,
            ]),
          ),
          'gatewayresponse.header.Content-Type': "'application/json'",
        });
      }
    });

    it.each([
      ['THROTTLED', 'rate_limited', THROTTLED_RETRY_AFTER_SECONDS],
      ['QUOTA_EXCEEDED', 'quota_exceeded', QUOTA_EXCEEDED_RETRY_AFTER_SECONDS],
    ] as const)(
      'answers %s with 429 %s, a static Retry-After of %i s and X-RateLimit-Remaining 0',
      (type, code, retryAfter) => {
        template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: type,
          StatusCode: '429',
          ResponseTemplates: {
            'application/json': JSON.stringify(gatewayResponse(type).body),
          },
          ResponseParameters: {
            'gatewayresponse.header.Retry-After': `'${retryAfter}'`,
            'gatewayresponse.header.X-RateLimit-Remaining': "'0'",
            'gatewayresponse.header.Content-Type': "'application/json'",
          },
        });
        expect(gatewayResponse(type).body.code).toBe(code);
      },
    );

    it('answers an unauthorized call with 401 and WWW-Authenticate: Bearer', () => {
      template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: 'UNAUTHORIZED',
        StatusCode: '401',
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.WWW-Authenticate': "'Bearer'",
        }),
      });
    });

    it("answers a call outside the key's scopes (ACCESS_DENIED) with 403 insufficient_scope naming pets:write", () => {
      template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: 'ACCESS_DENIED',
        StatusCode: '403',
        ResponseTemplates: {
          'application/json': JSON.stringify({
            code: 'insufficient_scope',
            message:
              "This API key's scopes do not cover this operation; it needs the scope pets:write.",
            status: 403,
          }),
        },
        ResponseParameters: {
          'gatewayresponse.header.WWW-Authenticate':
            '\'Bearer error="insufficient_scope", scope="pets:write"\'',
          'gatewayresponse.header.Content-Type': "'application/json'",
        },
      });
    });

    it('never creates the account-wide AWS::ApiGateway::Account', () => {
      template().resourceCountIs('AWS::ApiGateway::Account', 0);
    });
  });

  describe('usage plans', () => {
    it('has one usage plan per plan, the backstop of usagePlanSettings(PLANS[id]), bound to the v1 stage', () => {
      template().resourceCountIs('AWS::ApiGateway::UsagePlan', PLAN_IDS.length);
      for (const planId of PLAN_IDS) {
        const plan = PLANS[planId];
        const settings = usagePlanSettings(plan);
        template().hasResourceProperties('AWS::ApiGateway::UsagePlan', {
          UsagePlanName: `${stackName(stage)}-${plan.name}`,
          Throttle: { RateLimit: settings.rateLimit, BurstLimit: settings.burstLimit },
          Quota: { Limit: settings.quotaPerDay, Period: 'DAY' },
          ApiStages: [
            Match.objectLike({
              ApiId: { Ref: logicalId(stack(), 'Api') },
              Stage: apiStageRef(),
            }),
          ],
        });
      }
    });

    it("describes each usage plan with the plan's numbers and the backstop's", () => {
      for (const planId of PLAN_IDS) {
        const plan = PLANS[planId];
        const { burstLimit, quotaPerDay } = usagePlanSettings(plan);
        const [usagePlan] = Object.values(
          template().findResources('AWS::ApiGateway::UsagePlan', {
            Properties: { UsagePlanName: `${stackName(stage)}-${plan.name}` },
          }),
        );
        const description: string = usagePlan?.Properties.Description;
        for (const part of [
          `${plan.name} plan: ${plan.perMinute} requests per minute and ${plan.perDay} per day`,
          `backstop at ${BACKSTOP_FACTOR}x`,
          `burst ${burstLimit}, ${quotaPerDay} requests per day`,
        ]) {
          expect(description).toContain(part);
        }
      }
    });
  });
});
