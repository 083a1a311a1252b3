/**
 * AWS WAF in front of the API: what stops a flood before it reaches the authorizer and its GetItem.
 */
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * Default requests per source IP address in any 5-minute window before the web ACL blocks that
 * address: twice what a Business key may send in 5 minutes across fixed-window boundaries
 * (2 × 5 × 1,000), so that only an Enterprise client sending more than about 4,000 requests a
 * minute from one address needs a higher setting.
 */
export const DEFAULT_IP_RATE_LIMIT = 20_000;

/**
 * Rules of the AWS managed common rule set that count instead of block. SizeRestrictions_BODY
 * blocks bodies over 8 KB, but the API accepts bodies up to 16 KiB and answers larger ones itself
 * with 413 and the Error body (docs/rate-limits.md).
 */
export const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY'] as const;

/** A web ACL rule's CloudWatch metrics and sampled requests, under `metricName`. */
export function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName };
}

/**
 * `limit`, checked: AWS WAF's rate-based rules count 10 to 2,000,000,000 requests.
 * @throws Error when `limit` is not a whole number in that range.
 */
export function validIpRateLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 10 || limit > 2_000_000_000) {
    throw new Error(
      `ipRateLimit must be a whole number from 10 to 2000000000 (requests per IP per 5 minutes); got ${limit}`,
    );
  }
  return limit;
}

/**
 * The first rule of a web ACL (priority 0): block a source IP address that sent more than `limit`
 * requests in the last 5 minutes, until its rate falls below it again.
 */
export function rateLimitPerIp(limit: number): CfnWebACL.RuleProperty {
  return {
    name: 'RateLimitPerIp',
    priority: 0,
    action: { block: {} },
    statement: {
      rateBasedStatement: { aggregateKeyType: 'IP', limit, evaluationWindowSec: 300 },
    },
    visibilityConfig: visibility('RateLimitPerIp'),
  };
}

/** Props of {@link ApiWebAcl}. */
export interface ApiWebAclProps {
  /** The API stage the web ACL guards. */
  readonly stage: Stage;

  /**
   * Requests per source IP in any 5-minute window above which WAF blocks the address; AWS WAF
   * allows 10 to 2,000,000,000.
   *
   * @default DEFAULT_IP_RATE_LIMIT
   */
  readonly ipRateLimit?: number;
}

/**
 * A regional web ACL associated with an API stage (and others, {@link ApiWebAcl.associate}): allow by default; the AWS managed common rule
 * set (but {@link COUNTED_COMMON_RULES}) and known-bad-inputs rule set; a rate-based rule per
 * source IP. Every rule reports CloudWatch metrics and samples.
 *
 * @throws Error when `ipRateLimit` is not a whole number from 10 to 2,000,000,000.
 */
export class ApiWebAcl extends Construct {
  /** The web ACL. */
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    const ipRateLimit = validIpRateLimit(props.ipRateLimit ?? DEFAULT_IP_RATE_LIMIT);
    const managed = (
      priority: number,
      name: string,
      countedRules: readonly string[] = [],
    ): CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ruleActionOverrides: countedRules.length
            ? countedRules.map((rule) => ({ name: rule, actionToUse: { count: {} } }))
            : undefined,
        },
      },
      visibilityConfig: visibility(name),
    });

    this.webAcl = new CfnWebACL(this, 'Default', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PetstoreWebAcl'),
      rules: [
        rateLimitPerIp(ipRateLimit),
        managed(1, 'AWSManagedRulesCommonRuleSet', COUNTED_COMMON_RULES),
        managed(2, 'AWSManagedRulesKnownBadInputsRuleSet'),
      ],
    });
    this.associate('Association', props.stage);
  }

  /**
   * Guards one more API stage with this web ACL (the portal API's): one ACL and one bill, its
   * per-IP rate counting the requests to every stage it guards.
   */
  associate(id: string, stage: Stage): void {
    new CfnWebACLAssociation(this, id, {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
