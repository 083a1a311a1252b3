/**
 * The portal's page in each stage's template (issue 48, items 2 and 6), with no portal setting: a
 * private, TLS-only, encrypted, versioned bucket read by CloudFront alone through origin access
 * control (its bucket policy evaluated for sample callers), HTTPS only, the security headers of
 * infra/portal-headers.ts, access logs, the CloudFront-scope web ACL of the stage's edge stack
 * in us-east-1, and the assets the deploy uploads: the built site, `config.json` from the stack's
 * own values, the API reference.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_REFERENCE_CSP } from '../../infra/api-reference-page.ts';
import { DEFAULT_PORTAL_IP_RATE_LIMIT } from '../../infra/constructs/portal-edge-stack.ts';
import {
  CONTENT_TYPE_OPTIONS,
  contentSecurityPolicy,
  FRAME_OPTIONS,
  REFERRER_POLICY,
  STRICT_TRANSPORT_SECURITY,
} from '../../infra/portal-headers.ts';
import { portalEdgeStackName, STACK_OUTPUTS, STAGE_SETTINGS, STAGES } from '../../infra/stages.ts';
import { logicalId, petstore, stageOf, synthesizeStages } from '../support/petstore-app.ts';
import { policyAllows, resolve } from '../support/resource-policy.ts';

synthesizeStages();

describe.each(STAGES)('the portal site of the %s stage', (stage) => {
  const { stack, template } = stageOf(stage);
  // The template as JSON (`any`): its properties are read field by field.
  const resources = () => template().toJSON().Resources;
  const resourceAt = (path: string) => resources()[logicalId(stack(), path)];
  const ofType = (type: string) => Object.values(template().findResources(type));
  const distributionId = () => logicalId(stack(), 'Portal/Site/Distribution');
  const distribution = () => resourceAt('Portal/Site/Distribution').Properties.DistributionConfig;
  const origin = () => `https://getatt:${distributionId()}.DomainName`;

  describe('buckets', () => {
    it('keeps the page in a private, encrypted, versioned bucket that logs its access', () => {
      const bucket = resourceAt('Portal/Site/Bucket');
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: [{ NoncurrentVersionExpiration: { NoncurrentDays: 30 }, Status: 'Enabled' }],
        },
        LoggingConfiguration: {
          DestinationBucketName: { Ref: logicalId(stack(), 'Portal/Site/AccessLogs') },
        },
        NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
      });
      expect(bucket.DeletionPolicy).toBe('Retain');
    });

    it('lets CloudFront read it for this distribution only, and nobody over plain HTTP', () => {
      const policies = ofType('AWS::S3::BucketPolicy').filter(
        (policy) =>
          JSON.stringify(policy.Properties.Bucket) ===
          JSON.stringify({ Ref: logicalId(stack(), 'Portal/Site/Bucket') }),
      );
      expect(policies).toHaveLength(1);
      const statements = policies[0]?.Properties.PolicyDocument.Statement;
      const read = (service: string, context: Record<string, string>) =>
        policyAllows(statements, {
          service,
          action: 's3:GetObject',
          resource: `getatt:${logicalId(stack(), 'Portal/Site/Bucket')}.Arn/index.html`,
          context,
        });
      const distributionArn = `arn:aws:cloudfront::111111111111:distribution/ref:${distributionId()}`;
      const tls = { 'aws:SecureTransport': 'true' };
      expect(read('cloudfront.amazonaws.com', { 'AWS:SourceArn': distributionArn, ...tls })).toBe(
        true,
      );
      expect(
        read('cloudfront.amazonaws.com', {
          'AWS:SourceArn': 'arn:aws:cloudfront::111111111111:distribution/EOTHER',
          ...tls,
        }),
      ).toBe(false);
      expect(read('*', tls)).toBe(false);
      expect(
        read('cloudfront.amazonaws.com', {
          'AWS:SourceArn': distributionArn,
          'aws:SecureTransport': 'false',
        }),
      ).toBe(false);
    });

    it('keeps the access logs a year in a bucket of their own, the only one that logs nothing', () => {
      const logs = resourceAt('Portal/Site/AccessLogs');
      expect(logs.Properties).toMatchObject({
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
        LifecycleConfiguration: {
          Rules: [
            {
              ExpirationInDays: STAGE_SETTINGS[stage].logRetentionDays,
              NoncurrentVersionExpiration: { NoncurrentDays: 1 },
              Status: 'Enabled',
            },
          ],
        },
      });
      const unlogged = ofType('AWS::S3::Bucket').filter(
        (bucket) => bucket.Properties.LoggingConfiguration === undefined,
      );
      expect(unlogged).toEqual([logs]);
      expect(ofType('AWS::S3::Bucket')).toHaveLength(2);
    });
  });

  describe('distribution', () => {
    it('serves only HTTPS, only GET and HEAD, from the bucket through origin access control', () => {
      const config = distribution();
      const behaviors = [config.DefaultCacheBehavior, ...config.CacheBehaviors];
      for (const behavior of behaviors) {
        expect(behavior.ViewerProtocolPolicy).toBe('https-only');
        expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
      }
      expect(config.Origins).toHaveLength(1);
      expect(config.Origins[0]).toMatchObject({
        DomainName: {
          'Fn::GetAtt': [logicalId(stack(), 'Portal/Site/Bucket'), 'RegionalDomainName'],
        },
        OriginAccessControlId: { 'Fn::GetAtt': [expect.any(String), 'Id'] },
        S3OriginConfig: { OriginAccessIdentity: '' },
      });
      expect(config.DefaultRootObject).toBe('index.html');
      expect(config.Logging).toEqual({
        Bucket: {
          'Fn::GetAtt': [logicalId(stack(), 'Portal/Site/AccessLogs'), 'RegionalDomainName'],
        },
        Prefix: 'cloudfront/',
      });
      // No portal host name: CloudFront's own name and certificate.
      expect(config.Aliases).toBeUndefined();
      expect(config.ViewerCertificate).toBeUndefined();
      expect(resolve(template().toJSON().Outputs[STACK_OUTPUTS.portalUrl].Value)).toBe(
        `${origin()}/`,
      );
    });

    it("adds the portal's security headers to every page, and the reference's to its own", () => {
      const policyOf = (behavior: { ResponseHeadersPolicyId: { Ref: string } }) =>
        resources()[behavior.ResponseHeadersPolicyId.Ref]?.Properties.ResponseHeadersPolicyConfig
          .SecurityHeadersConfig;
      const page = policyOf(distribution().DefaultCacheBehavior);
      const expectedCsp = contentSecurityPolicy({
        connect: [
          `https://ref:${logicalId(stack(), 'Portal/Api')}.execute-api.us-east-1.amazonaws.com`,
          'https://cognito-idp.us-east-1.amazonaws.com',
          `https://petstore-${stage}-111111111111.auth.us-east-1.amazoncognito.com`,
        ],
      });
      expect(resolve(page.ContentSecurityPolicy.ContentSecurityPolicy)).toBe(expectedCsp);
      const [reference] = distribution().CacheBehaviors;
      expect(reference.PathPattern).toBe('reference/*');
      const referenceHeaders = policyOf(reference);
      expect(referenceHeaders.ContentSecurityPolicy.ContentSecurityPolicy).toBe(API_REFERENCE_CSP);
      for (const headers of [page, referenceHeaders]) {
        expect(headers).toMatchObject({
          ContentSecurityPolicy: { Override: true },
          StrictTransportSecurity: {
            AccessControlMaxAgeSec: STRICT_TRANSPORT_SECURITY.maxAgeSeconds,
            IncludeSubdomains: STRICT_TRANSPORT_SECURITY.includeSubDomains,
            Preload: STRICT_TRANSPORT_SECURITY.preload,
            Override: true,
          },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: FRAME_OPTIONS, Override: true },
          ReferrerPolicy: { ReferrerPolicy: REFERRER_POLICY, Override: true },
        });
      }
      expect(CONTENT_TYPE_OPTIONS).toBe('nosniff');
    });

    it("is guarded by the web ACL of the stage's edge stack, a CloudFront-scope one with a rate rule", () => {
      const edge = petstore.portalEdgeStacks[stage];
      expect(edge.stackName).toBe(portalEdgeStackName(stage));
      const [webAcl] = Object.values(edge.template.findResources('AWS::WAFv2::WebACL'));
      expect(webAcl?.Properties).toMatchObject({
        Scope: 'CLOUDFRONT',
        DefaultAction: { Allow: {} },
        Rules: [
          {
            Name: 'RateLimitPerIp',
            Action: { Block: {} },
            Statement: {
              RateBasedStatement: {
                AggregateKeyType: 'IP',
                Limit: DEFAULT_PORTAL_IP_RATE_LIMIT,
                EvaluationWindowSec: 300,
              },
            },
          },
        ],
      });
      expect(distribution().WebACLId).toEqual({
        'Fn::GetStackOutput': {
          StackName: portalEdgeStackName(stage),
          // An environment-agnostic stage's edge stack shares its region (app.ts).
          Region: { Ref: 'AWS::Region' },
          OutputName: expect.stringMatching(/^PublishOutputFnGetAttWebAcl/),
        },
      });
    });
  });

  describe('deployed files', () => {
    const deployment = (id: string) => resourceAt(`Portal/Site/${id}/CustomResource`).Properties;
    /** The directory of a deployment's source in the cloud assembly, by its S3 key. */
    const sourceDirectory = (key: string) =>
      join(petstore.directory, `asset.${key.replace(/\.zip$/, '')}`);

    it('uploads the built site: hashed assets cached a year, then the page and config.json never cached', () => {
      const assets = deployment('Assets');
      expect(assets).toMatchObject({
        Exclude: ['index.html'],
        Prune: false,
        SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
      });
      const pages = deployment('Pages');
      expect(pages).toMatchObject({
        Exclude: ['*'],
        Include: ['index.html', 'config.json'],
        Prune: false,
        SystemMetadata: { 'cache-control': 'no-cache' },
      });
      expect(resourceAt('Portal/Site/Pages/CustomResource').DependsOn ?? []).toEqual(
        expect.arrayContaining([expect.stringMatching(/^PortalSiteAssets/)]),
      );
      const [site] = assets.SourceObjectKeys as string[];
      expect(pages.SourceObjectKeys[0]).toBe(site);
      const directory = sourceDirectory(site as string);
      expect(readFileSync(join(directory, 'index.html'), 'utf8')).toMatch(
        /<script[^>]+src="\/assets\//,
      );
    });

    it("writes config.json from the stack's own user pool, client, portal API and pages", () => {
      const pages = deployment('Pages');
      const file = join(sourceDirectory(pages.SourceObjectKeys[1]), 'config.json');
      const markers = pages.SourceMarkers[1] as Record<string, unknown>;
      const text = Object.entries(markers).reduce(
        (content, [marker, value]) => content.replaceAll(marker, resolve(value)),
        readFileSync(file, 'utf8'),
      );
      const pool = logicalId(stack(), 'Portal/Accounts/UserPool');
      const client = `ref:${logicalId(stack(), 'Portal/Accounts/UserPool/Client')}`;
      const api = `https://ref:${logicalId(stack(), 'Portal/Api')}.execute-api.us-east-1.amazonaws.com/portal`;
      expect(JSON.parse(text)).toEqual({
        authority: `getatt:${pool}.ProviderURL`,
        clientId: client,
        portalApiUrl: api,
        apiReferenceUrl: `${origin()}/reference/index.html`,
        signUpUrl: `https://ref:${logicalId(stack(), 'Portal/Accounts/UserPool/Domain')}.auth.us-east-1.amazoncognito.com/signup?client_id=${client}&response_type=code&scope=openid+email&redirect_uri=${origin()}/`,
      });
    });

    it('uploads the API reference under reference/, documenting the stage API', () => {
      const reference = deployment('Reference');
      expect(reference.DestinationBucketKeyPrefix).toBe('reference/');
      const [swagger, page] = (reference.SourceObjectKeys as string[]).map(sourceDirectory);
      expect(existsSync(join(swagger as string, 'swagger-ui-bundle.js'))).toBe(true);
      expect(readFileSync(join(page as string, 'index.html'), 'utf8')).toContain(
        'src="/reference/init.js"',
      );
    });

    it('names the bucket and the distribution in the outputs', () => {
      const { Outputs } = template().toJSON();
      expect(Outputs[STACK_OUTPUTS.portalBucketName].Value).toEqual({
        Ref: logicalId(stack(), 'Portal/Site/Bucket'),
      });
      expect(Outputs[STACK_OUTPUTS.portalDistributionId].Value).toEqual({ Ref: distributionId() });
    });
  });
});
