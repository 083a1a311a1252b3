/**
 * The developer portal's accounts: a Cognito user pool per stage in its home region, its managed
 * login and the portal's app client (PORTAL-CONTRACT.md, "Accounts and sign-in";
 * docs/operations.md, "Portal").
 */
import { Aws, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  UserPoolEmail,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../shared/logger.ts';
import type { StageName } from '../stages.ts';

/** The shortest password the pool accepts (NIST SP 800-63B asks 8 or more; the issue 12). */
export const PORTAL_PASSWORD_MIN_LENGTH = 12;

/**
 * The prefix of the managed login's domain, `<prefix>.auth.<region>.amazoncognito.com`:
 * `petstore-<stage>-<account>`, unique per account and stage as Cognito needs it to be in a region.
 */
export function managedLoginPrefix(stage: StageName): string {
  return `${SERVICE_NAME}-${stage}-${Aws.ACCOUNT_ID}`;
}

/**
 * The origin of the stage's managed login (`https://<prefix>.auth.<region>.amazoncognito.com`),
 * known before its domain exists (the portal page's CSP names it).
 */
export function managedLoginOrigin(scope: Construct, stage: StageName): string {
  return `https://${managedLoginPrefix(stage)}.auth.${Stack.of(scope).region}.amazoncognito.com`;
}

/** Props of {@link PortalUserPool}. */
export interface PortalUserPoolProps {
  /** The stage: production's pool is deletion-protected and kept when the stack goes. */
  readonly stage: StageName;

  /** The portal's URL: the app client's one callback and sign-out URL, the invitations' link. */
  readonly portalUrl: string;

  /**
   * TOTP MFA required of every account (`petstore:<stage>:portalMfaRequired`); otherwise each
   * account may turn it on.
   *
   * @default false
   */
  readonly mfaRequired?: boolean;

  /**
   * No self sign-up: an operator invites each account (`petstore:<stage>:portalInvitationOnly`).
   *
   * @default false
   */
  readonly invitationOnly?: boolean;

  /**
   * The address the pool's mail comes from, through Amazon SES (`petstore:<stage>:portalEmailFrom`):
   * an identity SES has verified in the home region, out of its sandbox, whose sending policy
   * admits Cognito (docs/operations.md, "Portal").
   *
   * @default - Cognito's own sender, which sends about 50 mails a day
   */
  readonly emailFrom?: string;
}

/**
 * The stage's user pool (`UserPool`): accounts named by their e-mail address (case-insensitive),
 * verified by a code mailed to it before they count as verified (a change of address keeps the
 * old one until the new one is verified), passwords of {@link PORTAL_PASSWORD_MIN_LENGTH} or more
 * characters with no rule on their kinds, TOTP MFA optional or required (never SMS), self sign-up
 * unless `invitationOnly`, recovery by e-mail only, the Essentials feature plan (managed login);
 * deletion-protected and retained in production, destroyed with the stack in staging. Its
 * managed login (`Domain`, {@link managedLoginPrefix}, the newer managed login with Cognito's own
 * branding) and the portal's app client (`Client`): no secret, the authorization code grant
 * (PKCE: the page sends a challenge; see docs/operations.md), scopes `openid email`, the portal's
 * URL as its one callback and sign-out URL, no other sign-in flow, token revocation on.
 */
export class PortalUserPool extends Construct {
  /** The user pool. */
  readonly userPool: UserPool;

  /** The portal's app client. */
  readonly client: UserPoolClient;

  /** The managed login's domain. */
  readonly domain: UserPoolDomain;

  /** The tokens' issuer, `https://cognito-idp.<region>.amazonaws.com/<user pool id>`. */
  readonly issuer: string;

  /** The managed login's sign-up page for the portal, or undefined with `invitationOnly`. */
  readonly signUpUrl?: string;

  constructor(scope: Construct, id: string, props: PortalUserPoolProps) {
    super(scope, id);
    const production = props.stage === 'production';
    const mfaRequired = props.mfaRequired ?? false;
    const invitationOnly = props.invitationOnly ?? false;
    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `${Stack.of(this).stackName}-portal`,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: PORTAL_PASSWORD_MIN_LENGTH,
        requireLowercase: false,
        requireUppercase: false,
        requireDigits: false,
        requireSymbols: false,
      },
      mfa: mfaRequired ? Mfa.REQUIRED : Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      selfSignUpEnabled: !invitationOnly,
      userInvitation: {
        emailSubject: 'Your Petstore developer portal account',
        emailBody: `An account of the Petstore developer portal was made for you. Sign in at ${props.portalUrl} with the e-mail address {username} and the temporary password {####}.`,
      },
      userVerification: { emailSubject: 'Your Petstore developer portal verification code' },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      email: props.emailFrom
        ? UserPoolEmail.withSES({
            fromEmail: props.emailFrom,
            fromName: 'Petstore developer portal',
            sesRegion: Stack.of(this).region,
          })
        : UserPoolEmail.withCognito(),
      deletionProtection: production,
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: managedLoginPrefix(props.stage) },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.client = this.userPool.addClient('Client', {
      generateSecret: false,
      // Managed login alone signs in: no SRP, password or custom flow from the browser.
      authFlows: { userSrp: false },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [props.portalUrl],
        logoutUrls: [props.portalUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
    });
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    this.issuer = this.userPool.userPoolProviderUrl;
    if (!invitationOnly) {
      const query = new URLSearchParams({ response_type: 'code', scope: 'openid email' });
      this.signUpUrl = `${this.domain.baseUrl()}/signup?client_id=${this.client.userPoolClientId}&${query}&redirect_uri=${props.portalUrl}`;
    }
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG1',
        reason: `Passwords of ${PORTAL_PASSWORD_MIN_LENGTH} characters or more with no rule on their kinds of characters, as NIST SP 800-63B asks (a verifier shall not impose composition rules); Cognito refuses none of a breached list, so length carries the strength.`,
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The Plus plan\'s threat protection costs $0.02 per monthly active user from the first one; the portal issues Free keys only, at most a stage setting\'s number per account, and the Essentials plan is free up to 10,000 such users (docs/operations.md, "Portal").',
      },
    );
    if (!mfaRequired) {
      Validations.of(this.userPool).acknowledge({
        id: 'AwsSolutions-COG2',
        reason:
          "MFA (TOTP) is each account's choice unless the stage's portalMfaRequired setting requires it: a Free key must take a minute to get.",
      });
    }
  }
}
