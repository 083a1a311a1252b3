/**
 * What PetstoreStack and the app take as options: the stage (one of STAGES), a custom ban policy
 * passed to every operation function, and each stage's CDK context options (alarm e-mail, web ACL,
 * IP rate limit), each refused with a message that says what is allowed. Each test builds the
 * apps it needs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stage } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { createPetstoreApp } from '../../infra/app.ts';
import { PetstoreStack } from '../../infra/petstore-stack.ts';
import { contextKey, STAGES, type StageName } from '../../infra/stages.ts';
import { UNBUNDLED_CONTEXT } from '../support/deployment-app.ts';
import { banEnvironment, logicalId, OPERATION_IDS, outdir } from '../support/petstore-app.ts';

// The first app of the file loads the CDK's modules cold: seconds, more on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

describe('PetstoreStack props', () => {
  it('refuses a stage outside STAGES and says which are allowed', () => {
    const scope = new Stage(new App({ outdir }), 'dev');

    expect(() => new PetstoreStack(scope, 'Petstore', { stage: 'dev' as StageName })).toThrow(
      "stage must be one of staging, production; got 'dev'",
    );
  });

  it('passes a custom banPolicy to every operation function and none to the authorizer', () => {
    // GIVEN a stack with its own ban policy, in an app of its own
    const banPolicy = { threshold: 5, durationSeconds: 60 };
    const appOutdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-ban-'));
    try {
      const app = new App({ context: UNBUNDLED_CONTEXT, outdir: appOutdir });
      const stack = new PetstoreStack(app, 'Petstore', { stage: 'staging', banPolicy });

      // WHEN it is synthesized
      const { Resources } = Template.fromStack(stack).toJSON();

      // THEN each operation function gets the policy's variables, and the authorizer none
      const variablesOf = (id: string): Record<string, unknown> =>
        Resources[logicalId(stack, id)].Properties.Environment.Variables;
      for (const id of OPERATION_IDS) {
        expect(variablesOf(id)).toMatchObject(banEnvironment(banPolicy));
      }
      for (const name of ['RATE_LIMIT_BAN_THRESHOLD', 'RATE_LIMIT_BAN_SECONDS']) {
        expect(variablesOf('AuthorizerFunction')).not.toHaveProperty(name);
      }
    } finally {
      rmSync(appOutdir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      { threshold: 0, durationSeconds: 900 },
      'banPolicy.threshold must be a whole number >= 1; got 0',
    ],
    [
      { threshold: 2.5, durationSeconds: 900 },
      'banPolicy.threshold must be a whole number >= 1; got 2.5',
    ],
    [
      { threshold: 100, durationSeconds: -1 },
      'banPolicy.durationSeconds must be a whole number >= 1; got -1',
    ],
    [
      { threshold: 100, durationSeconds: Number.NaN },
      'banPolicy.durationSeconds must be a whole number >= 1; got NaN',
    ],
  ])('refuses the banPolicy %o and says what is allowed', (banPolicy, message) => {
    const scope = new Stage(new App({ outdir }), 'bad-ban');

    expect(() => new PetstoreStack(scope, 'Petstore', { stage: 'staging', banPolicy })).toThrow(
      message,
    );
  });
});

describe('stage options', () => {
  /** Synthesizes an app whose CDK context holds `context` besides cdk.json's flags. */
  function synthesize(context: Record<string, string>) {
    const appOutdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-options-'));
    try {
      const app = createPetstoreApp({
        context: { ...UNBUNDLED_CONTEXT, ...context },
        outdir: appOutdir,
      });
      return Object.fromEntries(
        STAGES.map((stage) => [stage, Template.fromStack(app.stacks[stage])]),
      ) as Record<StageName, Template>;
    } finally {
      rmSync(appOutdir, { recursive: true, force: true });
    }
  }

  it("subscribes the context's alarm e-mail to that stage's topic, turns its web ACL over and sets the IP limit", () => {
    // GIVEN production's alarm e-mail and staging's web ACL with its own IP limit, in the context
    const context = {
      [contextKey('production', 'alarmEmail')]: 'ops@example.com',
      [contextKey('staging', 'webAcl')]: 'true',
      [contextKey('staging', 'ipRateLimit')]: '500',
      [contextKey('production', 'webAcl')]: 'false',
    };

    // WHEN the app is synthesized
    const stages = synthesize(context);

    // THEN each stage has what its options say, and only that
    stages.production.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    stages.staging.resourceCountIs('AWS::SNS::Subscription', 0);
    stages.staging.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 500 }) } }),
      ]),
    });
    stages.production.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it.each([
    [
      { [contextKey('staging', 'webAcl')]: 'yes' },
      "petstore:staging:webAcl must be true or false; got 'yes'",
    ],
    [
      { [contextKey('staging', 'ipRateLimit')]: '5' },
      'ipRateLimit must be a whole number from 10 to 2000000000 (requests per IP per 5 minutes); got 5',
    ],
    [
      { [contextKey('staging', 'ipRateLimit')]: 'many' },
      "petstore:staging:ipRateLimit must be a number; got 'many'",
    ],
    [
      { [contextKey('production', 'alarmEmail')]: 'ops' },
      "alarmEmail must be an e-mail address such as ops@example.com; got 'ops'",
    ],
  ])('refuses the context %o and says what is allowed', (context, message) => {
    expect(() =>
      synthesize({
        ...context,
        [contextKey('staging', 'webAcl')]: context[contextKey('staging', 'webAcl')] ?? 'true',
      }),
    ).toThrow(message);
  });
});
