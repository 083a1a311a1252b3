/**
 * A stage's custom domain (issue 33, "A custom domain per stage"): the REGIONAL TLS 1.2 domain,
 * its base path `v1` mapped to the stage `v1`, the alias record, the `execute-api` endpoint
 * disabled unless kept, `ApiBaseUrl` naming the domain; the `Location` and `Link` paths the
 * functions write naming the same resource on both addresses; each setting refused with a
 * message that says what is allowed.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { domainOptions } from '../../infra/deployment-context.ts';
import { routeOf } from '../../infra/routes.ts';
import { contextKey, STACK_OUTPUTS, type StageName } from '../../infra/stages.ts';
import { PET_PATH, PETS_PATH, stagePath } from '../../shared/paths.ts';
import { deploymentApp, ENVIRONMENTS, environmentContext } from '../support/deployment-app.ts';

// The first app of the file loads the CDK's modules cold: many seconds on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

const { account, region } = ENVIRONMENTS.production;
const CERTIFICATE_ARN = `arn:aws:acm:${region}:${account}:certificate/0a1b2c3d-0000-4000-8000-000000000000`;

/** The context of production's domain `api.example.com` in its own account. */
const DOMAIN_CONTEXT = {
  ...environmentContext(),
  [contextKey('production', 'domainName')]: 'api.example.com',
  [contextKey('production', 'certificateArn')]: CERTIFICATE_ARN,
};

/** The context of the domain's hosted zone. */
const ZONE_CONTEXT = {
  [contextKey('production', 'hostedZoneId')]: 'Z0123456789ABCDEFGHIJ',
  [contextKey('production', 'hostedZoneName')]: 'example.com',
};

/** Each stage's template of an app built from `context`. */
function templatesOf(context: Record<string, string>): Record<StageName, Template> {
  const { stacks } = deploymentApp(context);
  return {
    staging: Template.fromStack(stacks.staging),
    production: Template.fromStack(stacks.production),
  };
}

/** The one resource of `type` in `template`, with its logical id. */
function only(template: Template, type: string) {
  // The admin and portal APIs' own RestApis and stages never meet the domain
  // (test/infra/admin-api.test.ts, portal-accounts.test.ts).
  const entries = Object.entries(template.findResources(type)).filter(
    ([id]) => !id.startsWith('AdminApi') && !id.startsWith('PortalApi'),
  );
  expect(entries, type).toHaveLength(1);
  const [[id, resource]] = entries as [[string, { Properties: Record<string, unknown> }]];
  return { id, properties: resource.Properties };
}

let templates: Record<StageName, Template>;

beforeAll(() => {
  templates = templatesOf({ ...DOMAIN_CONTEXT, ...ZONE_CONTEXT });
});

describe('a stage with a custom domain', () => {
  it('serves the domain on a REGIONAL endpoint with the TLS 1.2 policy and the certificate', () => {
    expect(only(templates.production, 'AWS::ApiGateway::DomainName').properties).toEqual({
      DomainName: 'api.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      RegionalCertificateArn: CERTIFICATE_ARN,
      SecurityPolicy: 'TLS_1_2',
    });
  });

  it('maps the base path v1 to the stage v1 of its RestApi, and names the domain in ApiBaseUrl', () => {
    const template = templates.production;
    const domain = only(template, 'AWS::ApiGateway::DomainName');
    const stage = only(template, 'AWS::ApiGateway::Stage');
    const mapping = only(template, 'AWS::ApiGateway::BasePathMapping').properties;

    expect(mapping).toEqual({
      BasePath: stage.properties.StageName,
      DomainName: { Ref: domain.id },
      RestApiId: { Ref: only(template, 'AWS::ApiGateway::RestApi').id },
      Stage: { Ref: stage.id },
    });
    expect(template.findOutputs(STACK_OUTPUTS.apiBaseUrl)[STACK_OUTPUTS.apiBaseUrl]?.Value).toBe(
      'https://api.example.com/v1/',
    );
  });

  it("names the region's own address: the domain's, reached on its regional name, and no health check", () => {
    const template = templates.production;
    const output = (name: string) => template.findOutputs(name)[name]?.Value;

    expect(output(STACK_OUTPUTS.regionalApiBaseUrl)).toBe('https://api.example.com/v1/');
    expect(output(STACK_OUTPUTS.regionalDomainName)).toEqual({
      'Fn::GetAtt': [only(template, 'AWS::ApiGateway::DomainName').id, 'RegionalDomainName'],
    });
    expect(output(STACK_OUTPUTS.healthCheckId)).toBeUndefined();
    template.resourceCountIs('AWS::Route53::HealthCheck', 0);
  });

  it("points the zone's alias A record at the domain's regional name", () => {
    const domain = only(templates.production, 'AWS::ApiGateway::DomainName').id;

    expect(only(templates.production, 'AWS::Route53::RecordSet').properties).toEqual({
      Name: 'api.example.com.',
      Type: 'A',
      HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      AliasTarget: {
        DNSName: { 'Fn::GetAtt': [domain, 'RegionalDomainName'] },
        HostedZoneId: { 'Fn::GetAtt': [domain, 'RegionalHostedZoneId'] },
      },
    });
  });

  it('disables the execute-api endpoint, so the domain is the one address', () => {
    expect(
      only(templates.production, 'AWS::ApiGateway::RestApi').properties.DisableExecuteApiEndpoint,
    ).toBe(true);
  });

  it('keeps the execute-api endpoint when the context says so, in another deployment, and makes no record without a zone', () => {
    const { production } = templatesOf({
      ...DOMAIN_CONTEXT,
      [contextKey('production', 'executeApiEndpoint')]: 'true',
    });

    expect(only(production, 'AWS::ApiGateway::RestApi').properties).not.toHaveProperty(
      'DisableExecuteApiEndpoint',
    );
    production.resourceCountIs('AWS::ApiGateway::DomainName', 1);
    production.resourceCountIs('AWS::Route53::RecordSet', 0);
    // the region's own address is then its execute-api URL
    expect(JSON.stringify(production.findOutputs(STACK_OUTPUTS.regionalApiBaseUrl))).toContain(
      '.execute-api.',
    );
    // the endpoint setting takes effect at a new deployment of the stage: CDK's deployment id
    // hashes the RestApi's properties, so each variant has its own
    const deployment = (template: Template) => only(template, 'AWS::ApiGateway::Deployment').id;
    expect(deployment(production)).not.toBe(deployment(templates.production));
  });

  it('leaves the stage without a domain as it was: no domain, mapping or record, the execute-api URL', () => {
    const { staging } = templates;

    for (const type of [
      'AWS::ApiGateway::DomainName',
      'AWS::ApiGateway::BasePathMapping',
      'AWS::Route53::RecordSet',
    ]) {
      staging.resourceCountIs(type, 0);
    }
    expect(only(staging, 'AWS::ApiGateway::RestApi').properties).not.toHaveProperty(
      'DisableExecuteApiEndpoint',
    );
    expect(JSON.stringify(staging.findOutputs(STACK_OUTPUTS.apiBaseUrl))).toContain(
      '.execute-api.',
    );
    const value = (name: string) => staging.findOutputs(name)[name]?.Value;
    expect(value(STACK_OUTPUTS.regionalApiBaseUrl)).toEqual(value(STACK_OUTPUTS.apiBaseUrl));
    expect(value(STACK_OUTPUTS.regionalDomainName)).toBeUndefined();
  });
});

describe('Location and Link on both addresses', () => {
  /**
   * Where API Gateway sends a request for `url`: on the execute-api host the first path segment
   * names the stage; on the custom domain it is a base path, whose mapping names the stage.
   */
  function route(template: Template, url: URL) {
    const stage = only(template, 'AWS::ApiGateway::Stage');
    const [, first, ...rest] = url.pathname.split('/');
    const mapping = only(template, 'AWS::ApiGateway::BasePathMapping').properties;
    const stageId = url.hostname.includes('.execute-api.')
      ? first === stage.properties.StageName && stage.id
      : first === mapping.BasePath && (mapping.Stage as { Ref: string }).Ref;
    return { stageId, resourcePath: `/${rest.join('/')}` };
  }

  it('resolve against each base URL to the stage v1 and the resource they name', () => {
    // GIVEN the stage's two base URLs, and the paths the functions write
    const template = templates.production;
    const stageId = only(template, 'AWS::ApiGateway::Stage').id;
    const bases = [
      'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1/',
      'https://api.example.com/v1/',
    ];
    const written = [
      [stagePath(PET_PATH, { petId: 7 }), '/pets/7'], // createPet's Location
      [stagePath(routeOf('getPet').deprecation?.successor ?? ''), PETS_PATH], // getPet's Link
    ];

    // THEN each, resolved as a client resolves it, reaches the same stage and resource
    for (const base of bases) {
      for (const [path, resourcePath] of written) {
        expect(route(template, new URL(path as string, base)), `${path} on ${base}`).toEqual({
          stageId,
          resourcePath,
        });
      }
    }
  });
});

describe('custom domain settings refused', () => {
  const key = (option: Parameters<typeof contextKey>[1]) => contextKey('production', option);
  const domain = {
    [key('domainName')]: 'api.example.com',
    [key('certificateArn')]: CERTIFICATE_ARN,
  };

  it.each([
    [
      { [key('domainName')]: 'api.example.com' },
      'petstore:production:domainName and petstore:production:certificateArn go together: set both or neither',
    ],
    [
      { [key('certificateArn')]: CERTIFICATE_ARN },
      'petstore:production:domainName and petstore:production:certificateArn go together: set both or neither',
    ],
    [
      { ...domain, [key('hostedZoneId')]: 'Z0123456789ABCDEFGHIJ' },
      'petstore:production:hostedZoneId and petstore:production:hostedZoneName go together: set both or neither',
    ],
    [
      { ...domain, [key('domainName')]: 'https://api.example.com' },
      "petstore:production:domainName must be a lower-case host name such as api.example.com; got 'https://api.example.com'",
    ],
    [
      { ...domain, [key('certificateArn')]: 'arn:aws:acm:us-east-1:222222222222:key/x' },
      'petstore:production:certificateArn must be an ACM certificate ARN',
    ],
    [
      { ...domain, [key('certificateArn')]: CERTIFICATE_ARN.replace(region, 'eu-west-1') },
      "petstore:production:certificateArn is in region eu-west-1, but a REGIONAL custom domain needs a certificate in the stack's region, us-east-1",
    ],
    [
      { ...domain, [key('certificateArn')]: CERTIFICATE_ARN.replace(account, '111111111111') },
      "petstore:production:certificateArn is in account 111111111111, but a REGIONAL custom domain needs a certificate in the stack's account, 222222222222",
    ],
    [
      {
        ...domain,
        [key('hostedZoneId')]: 'Z0123456789ABCDEFGHIJ',
        [key('hostedZoneName')]: 'example.org',
      },
      "petstore:production:domainName must be petstore:production:hostedZoneName or a name under it; got 'api.example.com' and 'example.org'",
    ],
    [
      { ...domain, [key('hostedZoneId')]: 'example.com', [key('hostedZoneName')]: 'example.com' },
      "petstore:production:hostedZoneId must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ; got 'example.com'",
    ],
    [
      { ...domain, [key('executeApiEndpoint')]: 'yes' },
      "petstore:production:executeApiEndpoint must be true or false; got 'yes'",
    ],
    [
      { [key('executeApiEndpoint')]: 'true' },
      'petstore:production:executeApiEndpoint applies only with petstore:production:domainName',
    ],
  ])('refuses %o', (context, message) => {
    expect(() =>
      domainOptions(new App({ context }), 'production', ENVIRONMENTS.production, region),
    ).toThrow(message);
  });

  it('refuses, building the app, a domain without its certificate', () => {
    expect(() =>
      deploymentApp({ [contextKey('staging', 'domainName')]: 'api.example.com' }),
    ).toThrow(
      'petstore:staging:domainName and petstore:staging:certificateArn go together: set both or neither',
    );
  });
});
