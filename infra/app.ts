/**
 * The CDK app: one `cdk.Stage` per entry of `STAGES`, each holding one `PetstoreStack`, and the
 * account-wide `ApiGatewayAccountStack`; cdk-nag's AWS Solutions checks fail an unacknowledged finding.
 */
import { pathToFileURL } from 'node:url';
import { App, type AppProps, type Environment, Stage, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SERVICE_NAME } from '../shared/logger.ts';
import { ApiGatewayAccountStack } from './constructs/api-gateway-account-stack.ts';
import { PetstoreStack, type PetstoreStackProps } from './petstore-stack.ts';
import { contextKey, STAGES, type StageName } from './stages.ts';

/**
 * Name of the stack holding the API Gateway account's CloudWatch role, deployed once per account
 * and region (`npx cdk deploy petstore-account`) before the first stage.
 */
export const ACCOUNT_STACK_NAME = `${SERVICE_NAME}-account`;

/** Construct id of the stack inside each stage: the CLI selects it as `<stage>/Petstore`. */
export const PETSTORE_STACK_ID = 'Petstore';

/** The app and its stacks, for the CLI (which synthesizes it) and the tests. */
export interface PetstoreApp {
  readonly app: App;
  readonly accountStack: ApiGatewayAccountStack;
  readonly stacks: Readonly<Record<StageName, PetstoreStack>>;
}

/**
 * Builds the app. Bundles the functions (local esbuild, a few seconds) but does not synthesize.
 *
 * Account and region come from `CDK_DEFAULT_ACCOUNT` and `CDK_DEFAULT_REGION`, which the CDK CLI
 * sets from the caller's credentials; without them the stacks are environment-agnostic.
 *
 * @param props App props; tests pass `context` (the feature flags of `cdk.json`) and `outdir`.
 */
export function createPetstoreApp(props: AppProps = {}): PetstoreApp {
  const app = new App(props);
  const env: Environment = {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: process.env.CDK_DEFAULT_REGION,
  };
  const accountStack = new ApiGatewayAccountStack(app, ACCOUNT_STACK_NAME, {
    stackName: ACCOUNT_STACK_NAME,
    env,
  });
  const stacks = Object.fromEntries(
    STAGES.map((stage) => [
      stage,
      new PetstoreStack(new Stage(app, stage, { env }), PETSTORE_STACK_ID, {
        stage,
        ...stageOptions(app, stage),
      }),
    ]),
  ) as Record<StageName, PetstoreStack>;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, accountStack, stacks };
}

/**
 * The options an operator set for `stage` in the CDK context (`-c key=value` or `cdk.json`):
 * `petstore:<stage>:alarmEmail`, `petstore:<stage>:webAcl` (`true` or `false`) and
 * `petstore:<stage>:ipRateLimit` (requests per IP per 5 minutes). Unset ones keep the stage's
 * defaults (`STAGE_SETTINGS`).
 *
 * @throws Error when webAcl is neither true nor false, or ipRateLimit is not a number.
 */
export function stageOptions(
  app: App,
  stage: StageName,
): Pick<PetstoreStackProps, 'alarmEmail' | 'webAcl' | 'ipRateLimit'> {
  const read = (option: Parameters<typeof contextKey>[1]): unknown =>
    app.node.tryGetContext(contextKey(stage, option));
  const webAcl = read('webAcl');
  const ipRateLimit = read('ipRateLimit');
  if (webAcl !== undefined && !['true', 'false', true, false].includes(webAcl as string)) {
    throw new Error(`${contextKey(stage, 'webAcl')} must be true or false; got '${webAcl}'`);
  }
  if (ipRateLimit !== undefined && Number.isNaN(Number(ipRateLimit))) {
    throw new Error(`${contextKey(stage, 'ipRateLimit')} must be a number; got '${ipRateLimit}'`);
  }
  const alarmEmail = read('alarmEmail');
  return {
    alarmEmail: alarmEmail === undefined ? undefined : String(alarmEmail),
    webAcl: webAcl === undefined ? undefined : String(webAcl) === 'true',
    ipRateLimit: ipRateLimit === undefined ? undefined : Number(ipRateLimit),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  createPetstoreApp().app.synth();
}
