/**
 * AWS Control Tower's proactive controls as the CDK checks them on every synthesis: the Guard rules
 * of `@cdklabs/cdk-validator-cfnguard` (run by the cfn-guard 3.1 binary it ships), and the one
 * place where a control is deliberately not met (docs/operations.md, "Governance").
 */
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Stage,
  Validations,
} from 'aws-cdk-lib';
import { STAGES, type StageName } from './stages.ts';

/**
 * The controls not met, by Guard rule id (the rule file's name), each with its reason: `app` for
 * every stack of the app, a stage's entry for that stage's stack alone (e.g. `ct-cloudwatch-pr-2`
 * for a staging `logRetentionDays` under 365). No other rule may be disabled anywhere.
 */
export const CONTROL_TOWER_EXCEPTIONS: {
  readonly app: Readonly<Record<string, string>>;
  readonly stages: Readonly<Record<StageName, Readonly<Record<string, string>>>>;
} = {
  app: {
    'ct-lambda-pr-3':
      'No function runs in a VPC: they reach only DynamoDB, Secrets Manager, X-Ray and CloudWatch, all public AWS endpoints over TLS with IAM, so a VPC would buy no network boundary that IAM does not already draw, and would cost private subnets in two AZs with interface endpoints for Secrets Manager, X-Ray and Logs (about $7.30 a month each per AZ, some $45 a month per stage) or NAT gateways (about $65 a month per stage) and a longer cold start with Hyperplane ENIs.',
  },
  stages: { staging: {}, production: {} },
};

/** The Control Tower rules but for `exceptions`' ids. */
function controlTowerRules(exceptions: Readonly<Record<string, string>>): CfnGuardValidator {
  return new CfnGuardValidator({ disabledRules: Object.keys(exceptions) });
}

/**
 * A policy-validation plugin that checks only the templates of the app's own assembly (the
 * account stacks), not those of its stages, which their own plugins check with their own
 * exceptions (the CDK hands an app's plugins every template, nested stages' included).
 */
class AppStacksOnly implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version?: string;
  readonly ruleIds?: string[];

  constructor(private readonly rules: CfnGuardValidator) {
    this.name = rules.name;
    this.version = rules.version;
    this.ruleIds = rules.ruleIds;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const templatePaths = context.stackTemplates
      .filter((stack) => !stack.stackConstructPath.includes('/'))
      .map((stack) => stack.templatePath);
    if (templatePaths.length === 0) return { success: true, violations: [] };
    return this.rules.validate({ ...context, templatePaths });
  }
}

/**
 * Adds the Control Tower checks to `app`: each stage of `STAGES` (a `Stage` child of the app named
 * after it) checked with the app's and its own exceptions, the app's own stacks with the app's.
 * A violation fails the synthesis (`cdk synth`, and in the tests `app.synth()`).
 *
 * @throws Error when a stage of `STAGES` is not yet a child of `app`.
 */
export function addControlTowerChecks(app: App): void {
  for (const stage of STAGES) {
    const scope = app.node.findChild(stage);
    if (!Stage.isStage(scope)) throw new Error(`${stage} is not a Stage of the app`);
    Validations.of(scope).addPlugins(
      controlTowerRules({
        ...CONTROL_TOWER_EXCEPTIONS.app,
        ...CONTROL_TOWER_EXCEPTIONS.stages[stage],
      }),
    );
  }
  Validations.of(app).addPlugins(
    new AppStacksOnly(controlTowerRules(CONTROL_TOWER_EXCEPTIONS.app)),
  );
}
