/**
 * The developer portal's CloudFront-scope web ACL: a stack of its own in us-east-1, where AWS WAF
 * keeps every web ACL a CloudFront distribution uses (docs/operations.md, "Portal").
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { portalEdgeStackName, type StageName } from '../stages.ts';
import { rateLimitPerIp, validIpRateLimit, visibility } from './api-web-acl.ts';

/** Where AWS WAF keeps the web ACLs of CloudFront distributions. */
export const CLOUDFRONT_WEB_ACL_REGION = 'us-east-1';

/**
 * Requests per source IP in any 5-minute window before the portal's web ACL blocks the address. A
 * visit fetches five or six files (the page, its script and stylesheet, `config.json`, the
 * icon), and the hashed ones are then cached by the browser: 1,000 is some 150 visits in 5
 * minutes from one address, room for an office behind one NAT, and a flood's end.
 */
export const DEFAULT_PORTAL_IP_RATE_LIMIT = 1_000;

/** Props of {@link PortalEdgeStack}; `env.region` is us-east-1 once the stage's region is known. */
export interface PortalEdgeStackProps extends Omit<StackProps, 'stackName'> {
  /** The stage whose portal the web ACL guards. */
  readonly stage: StageName;

  /**
   * Requests per source IP in 5 minutes above which the web ACL blocks the address (10 to
   * 2,000,000,000).
   *
   * @default DEFAULT_PORTAL_IP_RATE_LIMIT
   */
  readonly ipRateLimit?: number;
}

/**
 * The stack `portalEdgeStackName(stage)`: a web ACL of scope CLOUDFRONT that allows by default and
 * blocks, with its rate-based rule, an address sending more than `ipRateLimit` requests in 5
 * minutes. It guards nothing on its own: the home stack's distribution names it (`webAclArn`),
 * read through a weak cross-region reference (`Fn::GetStackOutput`), so this stack deploys
 * first and owns no reference to the stage. The site serves only static files of a single-page
 * app, so no managed rule group (each $1 a month) would inspect anything the app reads.
 *
 * @throws Error when `ipRateLimit` is not a whole number from 10 to 2,000,000,000.
 */
export class PortalEdgeStack extends Stack {
  /** The web ACL. */
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: PortalEdgeStackProps) {
    super(scope, id, { ...props, stackName: portalEdgeStackName(props.stage) });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PetstorePortalWebAcl'),
      rules: [rateLimitPerIp(validIpRateLimit(props.ipRateLimit ?? DEFAULT_PORTAL_IP_RATE_LIMIT))],
    });
  }
}
