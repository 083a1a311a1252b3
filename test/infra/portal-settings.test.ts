/**
 * The portal's settings (issue 48, items 1, 2 and 6): each `petstore:<stage>:portal…` key read,
 * checked and refused with a message that says what is allowed; and an app of two accounts whose
 * production sets them all (MFA required, invitation only, mail through SES, a key limit, an
 * Enterprise contact, its own host name in its zone) while staging sets none in eu-west-1: each
 * setting in the template, the web ACL read from us-east-1 either way, and the whole app through
 * cdk-nag and Control Tower's rules (production's CloudFront controls met, not excepted). The app
 * is test/support/deployment-app.ts's `TWO_ACCOUNTS_CONTEXT`, synthesized once per run;
 * test/infra/deploy-targets.test.ts runs cfn-lint over it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Environment } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiDomainOptions } from '../../infra/constructs/api-domain.ts';
import { portalOptions } from '../../infra/portal-settings.ts';
import { contextKey, portalEdgeStackName, STAGES, type StageName } from '../../infra/stages.ts';
import {
  ENVIRONMENTS,
  PORTAL_CERTIFICATE,
  TWO_ACCOUNTS_CONTEXT,
  ZONE,
} from '../support/deployment-app.ts';
import { resolve } from '../support/resource-policy.ts';
import {
  SYNTHESIS_TIMEOUT_MS,
  type SynthesizedApp,
  synthesizedApp,
} from '../support/synthesized-app.ts';

const PRODUCTION = ENVIRONMENTS.production;
const key = (option: Parameters<typeof contextKey>[1]) => contextKey('production', option);

describe('portal settings refused', () => {
  const domain: ApiDomainOptions = {
    domainName: 'api.example.com',
    certificateArn: 'arn:aws:acm:us-east-1:222222222222:certificate/abc',
    hostedZone: ZONE,
  };
  /** `portalOptions` of production in its sample environment, with `context` and `stageDomain`. */
  const read = (
    context: Record<string, string>,
    stageDomain: ApiDomainOptions | undefined = domain,
    environment: Environment = PRODUCTION,
  ) => portalOptions(new App({ context }), 'production', environment, stageDomain);
  /** {@link read} of a stage without a domain (an explicit `undefined` would take the default). */
  const withoutDomain = (context: Record<string, string>) =>
    portalOptions(new App({ context }), 'production', PRODUCTION, undefined);

  it.each([
    [key('portalMfaRequired'), 'yes', 'must be true or false'],
    [key('portalInvitationOnly'), '1', 'must be true or false'],
    [key('portalEmailFrom'), 'Portal <portal@example.com>', 'must be an e-mail address'],
    [key('portalKeyLimit'), '0', 'must be a whole number >= 1'],
    [key('portalKeyLimit'), '2.5', 'must be a whole number >= 1'],
    [
      key('portalEnterpriseContactUrl'),
      'http://example.com',
      'must be an https:// URL or a mailto:',
    ],
    [key('portalDomainName'), 'Portal.Example.com', 'must be a lower-case host name'],
  ])('refuses %s=%s, saying what it allows', (name, value, message) => {
    const context = {
      [name]: value,
      ...(name === key('portalDomainName') && {
        [key('portalCertificateArn')]: PORTAL_CERTIFICATE,
      }),
    };
    expect(() => read(context)).toThrow(`${name} ${message}`);
  });

  it('refuses one of the host name and its certificate without the other', () => {
    const message = `${key('portalDomainName')} and ${key('portalCertificateArn')} go together`;
    expect(() => read({ [key('portalDomainName')]: 'portal.example.com' })).toThrow(message);
    expect(() => read({ [key('portalCertificateArn')]: PORTAL_CERTIFICATE })).toThrow(message);
  });

  it("refuses a certificate outside us-east-1 or the stage's account", () => {
    const name = { [key('portalDomainName')]: 'portal.example.com' };
    const arn = (region: string, account: string) =>
      `arn:aws:acm:${region}:${account}:certificate/4b6c3f5e-2a1d-4e8f-9c0b-1d2e3f4a5b6c`;
    expect(() =>
      read({ ...name, [key('portalCertificateArn')]: arn('eu-west-1', PRODUCTION.account) }),
    ).toThrow('is in eu-west-1, but CloudFront reads certificates from us-east-1 only');
    expect(() =>
      read({ ...name, [key('portalCertificateArn')]: arn('us-east-1', '999999999999') }),
    ).toThrow('is in account 999999999999, but the stage deploys into 222222222222');
  });

  it("refuses a host name without the stage's domain, or outside its hosted zone", () => {
    const portal = (name: string) => ({
      [key('portalDomainName')]: name,
      [key('portalCertificateArn')]: PORTAL_CERTIFICATE,
    });
    expect(() => withoutDomain(portal('portal.example.com'))).toThrow(
      `${key('portalDomainName')} applies only with ${key('domainName')}`,
    );
    expect(() => read(portal('portal.example.org'))).toThrow(
      `${key('portalDomainName')} must be ${key('hostedZoneName')} or a name under it`,
    );
  });

  it('leaves every option unset when nothing is set', () => {
    expect(withoutDomain({})).toEqual({
      mfaRequired: undefined,
      invitationOnly: undefined,
      emailFrom: undefined,
      keyLimit: undefined,
      enterpriseContactUrl: undefined,
      domain: undefined,
    });
  });
});

describe('an app whose production sets every portal setting', () => {
  let petstore: SynthesizedApp;
  const templates = {} as Record<StageName, Template>;
  beforeAll(async () => {
    // GIVEN the app whose production sets every portal setting (TWO_ACCOUNTS_CONTEXT): WHEN it is
    // synthesized whole, its checks on (a cdk-nag finding or a broken control fails this hook)
    petstore = await synthesizedApp(TWO_ACCOUNTS_CONTEXT);
    for (const stage of STAGES) templates[stage] = petstore.stacks[stage].template;
  }, SYNTHESIS_TIMEOUT_MS);
  const resourceOf = (stage: StageName, type: string) => {
    const found = Object.entries(templates[stage].findResources(type));
    expect(found).toHaveLength(1);
    return found[0] as [string, { Properties: Record<string, unknown> } & Record<string, unknown>];
  };

  it('requires TOTP, admits by invitation only and mails through SES from the address', () => {
    const [, pool] = resourceOf('production', 'AWS::Cognito::UserPool');
    expect(pool.Properties).toMatchObject({
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      EmailConfiguration: {
        EmailSendingAccount: 'DEVELOPER',
        From: 'Petstore developer portal <portal@example.com>',
        SourceArn: `arn:aws:ses:us-east-1:${PRODUCTION.account}:identity/portal@example.com`,
      },
    });
    const [, staging] = resourceOf('staging', 'AWS::Cognito::UserPool');
    expect(staging.Properties).toMatchObject({
      MfaConfiguration: 'OPTIONAL',
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
    });
  });

  it('gives the portal functions the key limit and the Enterprise contact', () => {
    const functions = Object.values(templates.production.findResources('AWS::Lambda::Function'))
      .map(({ Properties }) => Properties.Environment?.Variables ?? {})
      .filter((variables) => variables.PORTAL_ISSUER !== undefined);
    expect(functions.length).toBeGreaterThan(0);
    for (const variables of functions) {
      expect(variables).toMatchObject({
        PORTAL_KEY_LIMIT: '3',
        PORTAL_ENTERPRISE_CONTACT_URL: 'mailto:sales@example.com',
        PORTAL_ORIGIN: 'https://portal.example.com',
      });
    }
  });

  it('writes no sign-up page into config.json when accounts come by invitation only', () => {
    const [id, pages] = Object.entries(
      templates.production.findResources('Custom::CDKBucketDeployment'),
    ).find(([logicalId]) => logicalId.startsWith('PortalSitePages')) as [
      string,
      { Properties: { SourceObjectKeys: string[]; SourceMarkers: Record<string, unknown>[] } },
    ];
    expect(id).toBeDefined();
    const { SourceObjectKeys, SourceMarkers } = pages.Properties;
    const directory = join(petstore.directory, `asset.${SourceObjectKeys[1]?.replace('.zip', '')}`);
    const config = Object.entries(SourceMarkers[1] ?? {}).reduce(
      (text, [marker, value]) => text.replaceAll(marker, resolve(value)),
      readFileSync(join(directory, 'config.json'), 'utf8'),
    );
    expect(Object.keys(JSON.parse(config)).sort()).toEqual(
      ['apiReferenceUrl', 'authority', 'clientId', 'portalApiUrl'].sort(),
    );
    expect(JSON.parse(config).apiReferenceUrl).toBe(
      'https://portal.example.com/reference/index.html',
    );
  });

  it('serves the portal on its own name: its certificate, TLS 1.2, SNI, A and AAAA records', () => {
    const [distributionId, distribution] = resourceOf(
      'production',
      'AWS::CloudFront::Distribution',
    );
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      Aliases: ['portal.example.com'],
      ViewerCertificate: {
        AcmCertificateArn: PORTAL_CERTIFICATE,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      },
    });
    for (const type of ['A', 'AAAA']) {
      templates.production.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'portal.example.com.',
        Type: type,
        HostedZoneId: ZONE.hostedZoneId,
        AliasTarget: { DNSName: { 'Fn::GetAtt': [distributionId, 'DomainName'] } },
      });
    }
    const [, client] = resourceOf('production', 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.CallbackURLs).toEqual(['https://portal.example.com/']);
  });

  it("reads the web ACL from the stage's edge stack in us-east-1, the home region's or another", () => {
    for (const stage of STAGES) {
      const edge = petstore.portalEdgeStacks[stage];
      expect(edge.region).toBe('us-east-1');
      expect(edge.account).toBe(ENVIRONMENTS[stage].account);
      const [, distribution] = resourceOf(stage, 'AWS::CloudFront::Distribution');
      const config = distribution.Properties.DistributionConfig as Record<string, unknown>;
      expect(config.WebACLId).toEqual({
        'Fn::GetStackOutput': {
          StackName: portalEdgeStackName(stage),
          Region: 'us-east-1',
          OutputName: expect.stringMatching(/^PublishOutputFnGetAttWebAcl/),
        },
      });
      expect(petstore.stacks[stage].dependencies).toContain(edge.path);
    }
    expect(petstore.stacks.staging.region).toBe('eu-west-1');
  });
});
