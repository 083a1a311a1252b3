/**
 * The edge of both stages' stacks and the functions' bundles, synthesized with cdk.json's flags:
 * the REGIONAL endpoint with X-Ray, the web ACL (its rules in production), the JSON access log
 * line, and the bundled `index.mjs` of each function (built for the runtime's Node.js, ESM, source
 * map, the AWS SDK inside but for the credential providers Lambda never reaches, no X-Ray SDK), run
 * as Lambda loads it against DynamoDB Local, down to the 5xx count a canary is judged by.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult, Handler } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import {
  BUNDLING,
  UNREACHED_CREDENTIAL_PROVIDERS,
} from '../../infra/constructs/service-function.ts';
import {
  createAuthorizerEvent,
  createLambdaContext,
  createProxyEvent,
} from '../../infra/local/events.ts';
import { AuthorizerResultSchema } from '../../infra/local/lambda-results.ts';
import { ROUTES } from '../../infra/routes.ts';
import { STAGE_SETTINGS, STAGES } from '../../infra/stages.ts';
import { SERVER_ERROR_RESPONSES } from '../../shared/metrics.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { operation } from '../support/openapi-document.ts';
import {
  FUNCTION_IDS,
  logicalId,
  petstore,
  stageOf,
  synthesizeStages,
  templates,
} from '../support/petstore-app.ts';
import { seedKey } from '../support/test-keys.ts';

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { template } = stageOf(stage);

  describe('edge', () => {
    it('has a REGIONAL endpoint and X-Ray tracing on the v1 stage', () => {
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      template().hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: API_STAGE_NAME,
        TracingEnabled: true,
      });
    });

    it(`${STAGE_SETTINGS[stage].webAcl ? 'puts' : 'puts no'} web ACL in front of the stage`, () => {
      const count = STAGE_SETTINGS[stage].webAcl ? 1 : 0;
      template().resourceCountIs('AWS::WAFv2::WebACL', count);
      // The public API's stage and the portal API's (test/infra/portal-accounts.test.ts).
      template().resourceCountIs('AWS::WAFv2::WebACLAssociation', 2 * count);
    });

    it('logs each request as one JSON line, numbers as numbers, with the integration, path, user agent and trace id', () => {
      const [apiStage] = Object.values(
        template().findResources('AWS::ApiGateway::Stage', {
          Properties: { StageName: API_STAGE_NAME },
        }),
      );
      const format: string = apiStage?.Properties.AccessLogSetting.Format;
      // As API Gateway fills it in for a refused key: no integration ran.
      const line = format
        .replace(/\$context\.(status|responseLength|responseLatency)\b/g, '401')
        .replace(/\$context\.[A-Za-z.]+/g, '-');

      expect(JSON.parse(line)).toMatchObject({
        status: 401,
        responseLength: 401,
        responseLatency: 401,
        integrationLatency: '-',
        integrationStatus: '-',
        path: '-',
        userAgent: '-',
        xrayTraceId: '-',
      });
      for (const field of [
        '$context.integrationLatency',
        '$context.integrationStatus',
        '$context.path',
        '$context.identity.userAgent',
        '$context.xrayTraceId',
      ]) {
        expect(format).toContain(field);
      }
    });
  });
});

describe('the web ACL of production', () => {
  it('runs the common and known-bad-inputs rule sets, the body size rule counted, and blocks an IP over 20,000 requests in 5 minutes', () => {
    const template = templates.production;
    const stack = petstore.stacks.production;
    const webAcl = logicalId(stack, 'Api/WebAcl');

    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Name: 'RateLimitPerIp',
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: { AggregateKeyType: 'IP', Limit: 20_000, EvaluationWindowSec: 300 },
          },
        }),
        Match.objectLike({
          Name: 'AWSManagedRulesCommonRuleSet',
          OverrideAction: { None: {} },
          Statement: {
            ManagedRuleGroupStatement: {
              VendorName: 'AWS',
              Name: 'AWSManagedRulesCommonRuleSet',
              RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
            },
          },
        }),
        Match.objectLike({
          Name: 'AWSManagedRulesKnownBadInputsRuleSet',
          Statement: {
            ManagedRuleGroupStatement: {
              VendorName: 'AWS',
              Name: 'AWSManagedRulesKnownBadInputsRuleSet',
            },
          },
        }),
      ],
    });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [webAcl, 'Arn'] },
      ResourceArn: {
        'Fn::Join': [
          '',
          Match.arrayWith([{ Ref: logicalId(stack, 'Api/Default/DeploymentStage.v1') }]),
        ],
      },
    });
  });
});

describe('the bundles', () => {
  /** Path of the bundled `index.mjs` of a function of the staging stack (both stages share it). */
  function bundlePath(id: string): string {
    const stack = petstore.stacks.staging;
    const { Properties } = templates.staging.toJSON().Resources[logicalId(stack, id)];
    const assetHash = String(Properties.Code.S3Key).replace(/\.zip$/, '');
    return join(petstore.directory, `asset.${assetHash}`, 'index.mjs');
  }

  /**
   * Imports a function's bundle as Lambda loads it, and returns its handler.
   *
   * @param instance Loads a fresh copy of the module (its own module scope) when set.
   */
  async function bundledHandler<Event, Result>(
    id: string,
    instance?: string,
  ): Promise<Handler<Event, Result>> {
    const url = `${pathToFileURL(bundlePath(id)).href}${instance ? `?${instance}` : ''}`;
    const module = (await import(url)) as { handler: Handler<Event, Result> };
    return module.handler;
  }

  it("are built for the functions' runtime: esbuild's target is its Node.js", () => {
    for (const id of FUNCTION_IDS) {
      const { Properties } =
        templates.staging.toJSON().Resources[logicalId(petstore.stacks.staging, id)];

      expect(Properties.Runtime).toBe(`nodejs${BUNDLING.target?.replace(/^node/, '')}.x`);
    }
  });

  it('are ESM with the createRequire banner and a source map, and carry the AWS SDK', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(bundlePath(id), 'utf8');

      expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(code).toContain('DynamoDBClient');
      expect(existsSync(`${bundlePath(id)}.map`)).toBe(true);
    }
  });

  it('leave out only the credential providers Lambda never reaches, each loaded by a dynamic import', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(bundlePath(id), 'utf8');
      const dynamic = [
        ...code.matchAll(/import\(\s*["']((?:@aws-sdk|@smithy)\/[^"']+)["']\s*\)/g),
      ].map((match) => match[1]);

      expect(new Set(dynamic)).toEqual(new Set(UNREACHED_CREDENTIAL_PROVIDERS));
      expect(code).not.toMatch(/from\s*["']@smithy\//);
      expect(code).toContain('credential-provider-env');
    }
  });

  /** The source files bundled into a function, from its source map. */
  function bundledSources(id: string): string[] {
    return (JSON.parse(readFileSync(`${bundlePath(id)}.map`, 'utf8')) as { sources: string[] })
      .sources;
  }

  it('hold a JSON body parser only in the operations whose document has a request body', () => {
    const withBody = ROUTES.filter(({ operationId }) => operation(operationId).requestBody).map(
      ({ constructId }) => constructId,
    );
    expect(withBody).toContain('CreatePetFunction');
    for (const id of FUNCTION_IDS) {
      const parsers = bundledSources(id).filter((source) =>
        source.includes('@middy/http-json-body-parser'),
      );
      expect(parsers.length > 0, id).toBe(withBody.includes(id));
    }
  });

  it("hold the keys table's lookup only in the authorizer, and its administration nowhere", () => {
    for (const id of FUNCTION_IDS) {
      const keyAdapters = bundledSources(id).filter((source) =>
        /shared\/dynamodb\/(dynamodb-)?key-/.test(source),
      );
      expect(keyAdapters, id).toEqual(
        id === 'AuthorizerFunction'
          ? [expect.stringMatching(/shared\/dynamodb\/dynamodb-key-lookup\.ts$/)]
          : [],
      );
    }
  });

  it('hold no X-Ray SDK and no Secrets Manager client: active tracing and the extension do without', () => {
    for (const id of FUNCTION_IDS) {
      const heavy = bundledSources(id).filter((source) =>
        /aws-xray-sdk|cls-hooked|powertools\/(tracer|parameters)|client-secrets-manager/.test(
          source,
        ),
      );
      expect(heavy, id).toEqual([]);
    }
  });

  it('run: the bundled authorizer admits a key and the bundled createPet and getPet serve with its context', async () => {
    const { token, record } = await seedKey({ plan: 'free' });
    const authorizer = await bundledHandler<unknown, APIGatewayAuthorizerResult>(
      'AuthorizerFunction',
    );
    const createPet = await bundledHandler<unknown, APIGatewayProxyResult>('CreatePetFunction');
    const getPet = await bundledHandler<unknown, APIGatewayProxyResult>('GetPetFunction');
    const context = createLambdaContext('bundle-test');
    const noCallback = () => {};

    const allowed = await authorizer(
      createAuthorizerEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { Authorization: `Bearer ${token}` },
      }),
      context,
      noCallback,
    );
    // API Gateway passes the authorizer's context on to the functions, whose rate limiter reads it.
    const { principalId, context: authorizerContext } = v.parse(AuthorizerResultSchema, allowed);
    const authorizerOutput = { ...authorizerContext, principalId };
    const created = await createPet(
      createProxyEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Bundled', categoryId: 1 }),
        authorizer: authorizerOutput,
      }),
      context,
      noCallback,
    );
    const pet = JSON.parse(created?.body ?? '{}');
    const fetched = await getPet(
      createProxyEvent({
        method: 'GET',
        resource: '/pets/{petId}',
        path: `/pets/${pet.id}`,
        pathParameters: { petId: String(pet.id) },
        authorizer: authorizerOutput,
      }),
      context,
      noCallback,
    );

    expect(principalId).toBe(record.keyId);
    expect(created?.statusCode).toBe(201);
    expect(fetched?.statusCode).toBe(200);
    expect(JSON.parse(fetched?.body ?? '{}')).toEqual(pet);
  });

  it('count a 500 answer to a bug as ServerErrorResponses of the version that gave it', async () => {
    // GIVEN the bundled getPet of staging, built against a pets table of the wrong key schema (the
    // keys table), so that DynamoDB refuses its GetItem as malformed: a bug, which it answers 500
    vi.stubEnv('PETS_TABLE_NAME', process.env.KEYS_TABLE_NAME);
    vi.stubEnv('PETSTORE_STAGE', 'staging');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_DEV', 'false');
    const written: string[] = [];
    const getPet = await bundledHandler<unknown, APIGatewayProxyResult>('GetPetFunction', 'bug');
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });

    // WHEN version 7, invoked through the alias, answers a request
    let answer: APIGatewayProxyResult | undefined;
    try {
      answer = (await getPet(
        createProxyEvent({
          method: 'GET',
          resource: '/pets/{petId}',
          path: '/pets/1',
          pathParameters: { petId: '1' },
          authorizer: { keyId: 'key_bundle5xx', plan: 'free', perMinute: 5, perDay: 100 },
        }),
        { ...createLambdaContext('petstore-staging-GetPetFunction'), functionVersion: '7' },
        () => {},
      )) as APIGatewayProxyResult;
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    }

    // THEN it answers 500 and writes one EMF line counting it for that version
    const counted = written
      .filter((line) => line.includes(`"${SERVER_ERROR_RESPONSES}"`))
      .map((line) => JSON.parse(line));
    expect(answer?.statusCode).toBe(500);
    expect(counted).toEqual([
      expect.objectContaining({
        service: 'petstore',
        stage: 'staging',
        functionName: 'petstore-staging-GetPetFunction',
        functionVersion: '7',
        [SERVER_ERROR_RESPONSES]: 1,
      }),
    ]);
  });
});
