/**
 * A stage's developer portal as operators set it (docs/operations.md, "Portal"), read from the
 * CDK context and checked: its user pool's MFA, sign-up and mail sender, the active keys an
 * account may hold, and the portal's own host name.
 */
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ApiDomainOptions } from './constructs/api-domain.ts';
import type { PortalOptions } from './constructs/portal.ts';
import { CERTIFICATE_ARN, flag, HOST_NAME, matching } from './deployment-context.ts';
import { contextKey, type PortalOption, type StageName } from './stages.ts';

/** CloudFront reads a distribution's certificate from ACM in this region only. */
export const CLOUDFRONT_CERTIFICATE_REGION = 'us-east-1';

/** An e-mail address as SES sends from it: `local@domain`, no display name. */
const EMAIL_ADDRESS = /^[^\s@<>"]+@[a-z0-9.-]+\.[a-z]{2,}$/i;

/** Where a client asks about Enterprise: an HTTPS page or a `mailto:` address. */
const CONTACT_URL = /^(https:\/\/[^\s]+|mailto:[^\s@]+@[^\s@]+)$/;

/**
 * `stage`'s portal options: `petstore:<stage>:portalMfaRequired` and `:portalInvitationOnly`
 * (`true` or `false`), `:portalEmailFrom` (an address SES has verified in the home region),
 * `:portalKeyLimit` (a whole number >= 1), `:portalEnterpriseContactUrl` (`https://…` or
 * `mailto:…`) and the pair `:portalDomainName` with
 * `:portalCertificateArn` (a certificate of the stage's account in us-east-1), which needs the
 * stage's own domain (`:domainName`) and, when that has a hosted zone, a name in it. Unset ones
 * keep the portal's defaults.
 *
 * @param environment The stage's account and home region.
 * @param stageDomain The stage's custom domain in its home region (`domainOptions`), if any.
 * @throws Error naming the key, when a value has the wrong shape, one of the domain pair is
 *   missing, the certificate is in another region or account, or the domain is set without the
 *   stage's or outside its hosted zone.
 */
export function portalOptions(
  scope: Construct,
  stage: StageName,
  environment: Environment,
  stageDomain: ApiDomainOptions | undefined,
): PortalOptions {
  const key = (option: PortalOption) => contextKey(stage, option);
  const keyLimit = matching(scope, key('portalKeyLimit'), /^[1-9][0-9]*$/, 'a whole number >= 1');
  return {
    mfaRequired: flag(scope, key('portalMfaRequired')),
    invitationOnly: flag(scope, key('portalInvitationOnly')),
    emailFrom: matching(
      scope,
      key('portalEmailFrom'),
      EMAIL_ADDRESS,
      'an e-mail address that SES has verified, such as portal@example.com',
    ),
    keyLimit: keyLimit === undefined ? undefined : Number(keyLimit),
    enterpriseContactUrl: matching(
      scope,
      key('portalEnterpriseContactUrl'),
      CONTACT_URL,
      'an https:// URL or a mailto: address',
    ),
    domain: portalDomain(scope, stage, environment, stageDomain),
  };
}

/** The portal's host name and certificate, checked as {@link portalOptions} says. */
function portalDomain(
  scope: Construct,
  stage: StageName,
  environment: Environment,
  stageDomain: ApiDomainOptions | undefined,
): PortalOptions['domain'] {
  const nameKey = contextKey(stage, 'portalDomainName');
  const certificateKey = contextKey(stage, 'portalCertificateArn');
  const domainName = matching(
    scope,
    nameKey,
    HOST_NAME,
    'a lower-case host name such as portal.example.com',
  );
  const certificateArn = matching(
    scope,
    certificateKey,
    CERTIFICATE_ARN,
    'an ACM certificate ARN, arn:aws:acm:us-east-1:<account>:certificate/<id>',
  );
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error(`${nameKey} and ${certificateKey} go together: set both or neither`);
  }
  if (domainName === undefined || certificateArn === undefined) return undefined;
  if (stageDomain === undefined) {
    throw new Error(`${nameKey} applies only with ${contextKey(stage, 'domainName')}`);
  }
  const [, region, account] = CERTIFICATE_ARN.exec(certificateArn) ?? [];
  if (region !== CLOUDFRONT_CERTIFICATE_REGION) {
    throw new Error(
      `${certificateKey} is in ${region}, but CloudFront reads certificates from ${CLOUDFRONT_CERTIFICATE_REGION} only`,
    );
  }
  if (environment.account !== undefined && account !== environment.account) {
    throw new Error(
      `${certificateKey} is in account ${account}, but the stage deploys into ${environment.account}`,
    );
  }
  const zone = stageDomain.hostedZone;
  if (zone && domainName !== zone.zoneName && !domainName.endsWith(`.${zone.zoneName}`)) {
    throw new Error(
      `${nameKey} must be ${contextKey(stage, 'hostedZoneName')} or a name under it; got '${domainName}' and '${zone.zoneName}'`,
    );
  }
  return { domainName, certificateArn, hostedZone: zone };
}
