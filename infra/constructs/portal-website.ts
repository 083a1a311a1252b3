/**
 * The developer portal's page on a stage: a private S3 bucket behind CloudFront, with the
 * portal's security headers (infra/portal-headers.ts), its web ACL and, optionally, its own host
 * name (docs/operations.md, "Portal").
 */
import {
  BOOTSTRAP_QUALIFIER_CONTEXT,
  type CfnElement,
  Duration,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  SSLMethod,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { PortalConfig } from '../../portal/src/config.ts';
import {
  API_REFERENCE_ASSETS,
  API_REFERENCE_CSP,
  apiReferenceDocument,
  apiReferenceInit,
  apiReferencePage,
  SWAGGER_UI,
} from '../api-reference-page.ts';
import { DEFAULT_BOOTSTRAP_QUALIFIER } from '../deployment-context.ts';
import { portalSiteSource } from '../portal-assets.ts';
import {
  contentSecurityPolicy,
  FRAME_OPTIONS,
  type PortalOrigins,
  REFERRER_POLICY,
  STRICT_TRANSPORT_SECURITY,
} from '../portal-headers.ts';
import type { ApiDomainOptions } from './api-domain.ts';
import { type StageLogs, stageLogGroup } from './stage-key.ts';

/** Where the site serves the API reference (Swagger UI on docs/openapi.yaml). */
export const REFERENCE_PATH = '/reference';

/** The portal's own host name (`petstore:<stage>:portalDomainName`, `:portalCertificateArn`). */
export interface PortalDomainOptions {
  /** The portal's host name, e.g. `portal.example.com`. */
  readonly domainName: string;
  /** ARN of an ACM certificate for `domainName` in us-east-1, where CloudFront reads it. */
  readonly certificateArn: string;
  /**
   * The stage's Route 53 public hosted zone: A and AAAA alias records are then made in it.
   *
   * @default - no record: the operator points the name at the distribution
   */
  readonly hostedZone?: ApiDomainOptions['hostedZone'];
}

/** Props of {@link PortalSite}. */
export interface PortalSiteProps {
  /** The stage's logs: their retention is the access logs' (days), their removal policy too. */
  readonly logs: StageLogs;

  /** ARN of the CloudFront-scope web ACL guarding the distribution (`PortalEdgeStack`). */
  readonly webAclArn: string;

  /** The origins the page calls beside its own (the CSP's `connect-src`, `form-action`). */
  readonly origins: PortalOrigins;

  /**
   * The portal's own host name.
   *
   * @default - CloudFront's `*.cloudfront.net` name and certificate
   */
  readonly domain?: PortalDomainOptions;
}

/**
 * The page's bucket and the bucket of its access logs: private (all four public access blocks),
 * TLS only (a bucket policy denying plain HTTP), encrypted (SSE-S3), versioned with noncurrent
 * versions expiring, events to EventBridge, kept when the stack goes.
 */
const BUCKET_DEFAULTS: BucketProps = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  enforceSSL: true,
  encryption: BucketEncryption.S3_MANAGED,
  versioned: true,
  removalPolicy: RemovalPolicy.RETAIN,
};

/**
 * A bucket with {@link BUCKET_DEFAULTS} and `props`, its events sent to EventBridge's default bus
 * (free, and what Control Tower's ct-s3-pr-4 asks): set on the bucket itself, as CloudFormation
 * allows, where `eventBridgeEnabled` would add a custom resource and its function.
 */
function siteBucket(scope: Construct, id: string, props: BucketProps): Bucket {
  const bucket = new Bucket(scope, id, { ...BUCKET_DEFAULTS, ...props });
  (bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
    eventBridgeConfiguration: { eventBridgeEnabled: true },
  };
  return bucket;
}

/**
 * The portal's site: the bucket `Bucket` (its server access logs into `AccessLogs`, old versions
 * gone after 30 days) behind the CloudFront distribution `Distribution`, which reads it through
 * origin access control, answers HTTPS only (HTTP/2 and 3, North America and Europe's edges),
 * serves `index.html` at `/`, adds the portal's security headers (a response headers policy of
 * infra/portal-headers.ts's values, overriding the origin's), logs every request into
 * `AccessLogs` (kept `logs.retentionDays` days) and is guarded by `webAclArn`. With `domain`, the
 * distribution answers for its name with its certificate (TLS 1.2 or later, SNI) and, given the
 * zone, A and AAAA alias records name it. Files come with {@link deploy}.
 *
 * The log bucket keeps ACLs (object ownership "bucket owner preferred"): CloudFront's standard
 * logs, the kind Control Tower's ct-cloudfront-pr-5 reads, are delivered with one.
 */
export class PortalSite extends Construct {
  /** The bucket of the page's files. */
  readonly bucket: Bucket;

  /** The distribution. */
  readonly distribution: Distribution;

  /** The portal's URL, ending in `/`: its own host name's, or the distribution's. */
  readonly url: string;

  /** The portal's origin (`https://host`), which the portal API's CORS admits. */
  readonly origin: string;

  /** The API reference's page on the site (`config.json`'s `apiReferenceUrl`). */
  readonly referenceUrl: string;

  private readonly logs: StageLogs;

  constructor(scope: Construct, id: string, props: PortalSiteProps) {
    super(scope, id);
    this.logs = props.logs;
    const accessLogs = siteBucket(this, 'AccessLogs', {
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [
        {
          expiration: Duration.days(props.logs.retentionDays),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "The bucket of the portal site's access logs: logging it into itself would log each delivery of logs, and into another bucket would only move the question.",
    });
    this.bucket = siteBucket(this, 'Bucket', {
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'bucket/',
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
    });
    const headers = securityHeaders(this, 'Headers', contentSecurityPolicy(props.origins));
    const referenceHeaders = securityHeaders(this, 'ReferenceHeaders', API_REFERENCE_CSP);
    const { domain } = props;
    const behavior = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      compress: true,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Petstore developer portal',
      defaultBehavior: { ...behavior, responseHeadersPolicy: headers },
      additionalBehaviors: {
        [`${REFERENCE_PATH.slice(1)}/*`]: { ...behavior, responseHeadersPolicy: referenceHeaders },
      },
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: accessLogs,
      logFilePrefix: 'cloudfront/',
      webAclId: props.webAclArn,
      ...(domain && {
        domainNames: [domain.domainName],
        certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        sslSupportMethod: SSLMethod.SNI,
      }),
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'The portal serves every country the API serves; the API itself has no geographic restriction.',
    });
    if (!domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          "Without the stage's portalDomainName the distribution answers on CloudFront's own *.cloudfront.net certificate, whose security policy CloudFront fixes; set the portal's host name and certificate for TLS 1.2 or later (docs/operations.md, \"Portal\").",
      });
    }
    const host = domain?.domainName ?? this.distribution.distributionDomainName;
    this.origin = `https://${host}`;
    this.url = `${this.origin}/`;
    this.referenceUrl = `${this.origin}${REFERENCE_PATH}/index.html`;
    if (domain?.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', domain.hostedZone);
      const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
      new ARecord(this, 'AliasRecord', { zone, recordName: domain.domainName, target });
      new AaaaRecord(this, 'AliasRecordIpv6', { zone, recordName: domain.domainName, target });
    }
  }

  /**
   * Uploads the built site (`portalSiteSource`), `config.json` and the API reference on every
   * deploy, through `BucketDeployment`s sharing one function (its role, its log group of the
   * stage): first the hashed `assets/` with `Cache-Control: public, max-age=31536000, immutable`,
   * kept after later deploys (a page still open elsewhere loads them), then `index.html` and
   * `config.json` with `no-cache`, so that a browser and the edges ask again at each visit and no
   * invalidation is needed; and under `reference/` Swagger UI's page on docs/openapi.yaml
   * (infra/api-reference-page.ts) with `apiBaseUrl` as its first server, documenting only.
   */
  deploy(config: PortalConfig, apiBaseUrl: string): void {
    const logGroup = stageLogGroup(this, 'DeploymentLogs', this.logs);
    const role = new Role(this, 'DeploymentRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    const common = { destinationBucket: this.bucket, role, logGroup, prune: false };
    const site = portalSiteSource();
    const assets = new BucketDeployment(this, 'Assets', {
      ...common,
      sources: [site],
      exclude: ['index.html'],
      cacheControl: [
        CacheControl.setPublic(),
        CacheControl.maxAge(Duration.days(365)),
        CacheControl.immutable(),
      ],
    });
    const pages = new BucketDeployment(this, 'Pages', {
      ...common,
      sources: [site, Source.jsonData('config.json', config)],
      exclude: ['*'],
      include: ['index.html', 'config.json'],
      cacheControl: [CacheControl.noCache()],
    });
    pages.node.addDependency(assets);
    const base = REFERENCE_PATH;
    new BucketDeployment(this, 'Reference', {
      ...common,
      destinationKeyPrefix: `${base.slice(1)}/`,
      sources: [
        Source.asset(SWAGGER_UI, {
          exclude: ['*', ...Object.keys(API_REFERENCE_ASSETS).map((name) => `!${name}`)],
        }),
        Source.data('index.html', apiReferencePage(base, 'Petstore API reference')),
        Source.data('init.js', apiReferenceInit(base, false)),
        Source.jsonData(
          'openapi.json',
          apiReferenceDocument({ url: apiBaseUrl, description: "This stage's API." }),
        ),
      ],
      cacheControl: [CacheControl.noCache()],
    });
    const stack = Stack.of(this);
    // cdk-nag names a resource as synthesized: pseudo parameters, or the stage's own values.
    const named = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);
    const qualifier =
      this.node.tryGetContext(BOOTSTRAP_QUALIFIER_CONTEXT) ?? DEFAULT_BOOTSTRAP_QUALIFIER;
    const assetBucket = `cdk-${qualifier}-assets-${named(stack.account, '<AWS::AccountId>')}-${named(stack.region, '<AWS::Region>')}`;
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const wildcards = [
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
        (action) => `Action::${action}`,
      ),
      `Resource::arn:${named(stack.partition, '<AWS::Partition>')}:s3:::${assetBucket}/*`,
      `Resource::<${bucketId}.Arn>/*`,
    ];
    Validations.of(role).acknowledge(
      ...wildcards.map((wildcard) => ({
        id: `AwsSolutions-IAM5[${wildcard}]`,
        reason:
          "BucketDeployment's grants: read the deploy's objects of the CDK's asset bucket (content-hashed keys known only at deploy time), list, write and delete the objects of the site's bucket, every key of which a deploy may write.",
      })),
    );
    for (const handler of stack.node.children) {
      if (!handler.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          "BucketDeployment's own function, whose Python runtime and AWS CLI layer aws-cdk-lib chooses and updates with the library; it runs only during a deploy.",
      });
    }
  }
}

/**
 * A response headers policy of the portal's security headers (infra/portal-headers.ts) with `csp`
 * as the Content-Security-Policy, each overriding whatever the origin sent.
 */
function securityHeaders(scope: Construct, id: string, csp: string): ResponseHeadersPolicy {
  const { maxAgeSeconds, includeSubDomains, preload } = STRICT_TRANSPORT_SECURITY;
  return new ResponseHeadersPolicy(scope, id, {
    comment: "The developer portal's security headers (infra/portal-headers.ts)",
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.seconds(maxAgeSeconds),
        includeSubdomains: includeSubDomains,
        preload,
        override: true,
      },
      // CloudFront's one value, `nosniff`: CONTENT_TYPE_OPTIONS.
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption[FRAME_OPTIONS], override: true },
      referrerPolicy: { referrerPolicy: referrerPolicy(REFERRER_POLICY), override: true },
    },
  });
}

/** `REFERRER_POLICY` as CloudFront names it. @throws Error when CloudFront has no such value. */
function referrerPolicy(value: string): HeadersReferrerPolicy {
  const policy = Object.values(HeadersReferrerPolicy).find((each) => each === value);
  if (!policy) throw new Error(`CloudFront cannot send Referrer-Policy: ${value}`);
  return policy;
}
