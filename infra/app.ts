/**
 * The CDK app: one `cdk.Stage` per entry of `STAGES`, each holding one `PetstoreStack` per region
 * of the stage (the home region's, then each other region's with its `RegionKeyStack`), and an
 * `AccountStack` per account and region the stages use;
 * cdk-nag's AWS Solutions checks fail an unacknowledged finding, AWS Control Tower's proactive
 * controls (infra/control-tower.ts) a violation.
 */
import { pathToFileURL } from 'node:url';
import {
  App,
  type AppProps,
  BOOTSTRAP_QUALIFIER_CONTEXT,
  type Environment,
  Stage,
  Validations,
} from 'aws-cdk-lib';
import { FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SERVICE_NAME } from '../shared/logger.ts';
import { AccountStack } from './constructs/account-stack.ts';
import { RegionKeyStack } from './constructs/region-key-stack.ts';
import { addControlTowerChecks } from './control-tower.ts';
import { type DeploymentConfig, deploymentConfig } from './deployment-config.ts';
import { PetstoreStack } from './petstore-stack.ts';
import { APP_CONTEXT, STAGES, type StageName } from './stages.ts';

/**
 * Name of the stack holding the API Gateway account's CloudWatch role (and the GitHub roles),
 * deployed once per account and region (`npx cdk deploy petstore-account`) before the first
 * stage, when both stages share one account and region; otherwise see {@link accountStackName}.
 */
export const ACCOUNT_STACK_NAME = `${SERVICE_NAME}-account`;

/**
 * Name (and construct id) of the account stack of the account and region `stage` is the first
 * to use, when the stages do not all share one: e.g. `petstore-account-production`.
 */
export function accountStackName(stage: StageName): string {
  return `${ACCOUNT_STACK_NAME}-${stage}`;
}

/** Construct id of the stack inside each stage: the CLI selects it as `<stage>/Petstore`. */
export const PETSTORE_STACK_ID = 'Petstore';

/** Construct id of a stage's stack in a region other than its home, e.g. `Petstore-us-west-2`. */
export function regionalStackId(region: string): string {
  return `${PETSTORE_STACK_ID}-${region}`;
}

/** Construct id of a stage's key stack in a region other than its home, e.g. `PetstoreKey-us-west-2`. */
export function regionKeyStackId(region: string): string {
  return `${PETSTORE_STACK_ID}Key-${region}`;
}

/** The app and its stacks, for the CLI (which synthesizes it) and the tests. */
export interface PetstoreApp {
  readonly app: App;
  /** The account stack of each stage's account and region (one object when they share both). */
  readonly accountStacks: Readonly<Record<StageName, AccountStack>>;
  /** The account stacks of the regions other than a stage's home that no home region shares. */
  readonly regionalAccountStacks: readonly AccountStack[];
  /** Each stage's home region's stack. */
  readonly stacks: Readonly<Record<StageName, PetstoreStack>>;
  /** Each stage's stacks in its other regions, in the order of its regions. */
  readonly regionalStacks: Readonly<Record<StageName, readonly PetstoreStack[]>>;
  /** Each stage's key stacks in its other regions, in the order of its regions. */
  readonly regionKeyStacks: Readonly<Record<StageName, readonly RegionKeyStack[]>>;
}

/**
 * Builds the app. Bundles the functions (local esbuild, a few seconds) but does not synthesize.
 *
 * The stacks are composed from `deploymentConfig` (infra/deployment-config.ts: every context
 * key, read and checked before any stack exists). A `petstore:bootstrapQualifier` becomes the
 * CDK's own (`@aws-cdk/core:bootstrapQualifier`).
 *
 * @param props App props; tests pass `context` (the feature flags of `cdk.json`) and `outdir`.
 * @throws Error when a context value is refused (`deploymentConfig`), or provider ARNs name
 *   accounts no stage deploys into.
 */
export function createPetstoreApp(props: AppProps = {}): PetstoreApp {
  const app = new App(props);
  // The CDK CLI (2.1148) sets this false, taking the report over, and then exits 0 on a failed
  // validation: the app prints the report and exits 1 itself, so that `cdk synth` fails.
  app.node.setContext(FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT, true);
  const config = deploymentConfig(app);
  if (config.bootstrapQualifier !== undefined) {
    // Every stack then deploys through the bootstrap roles and bucket the GitHub roles reach.
    app.node.setContext(BOOTSTRAP_QUALIFIER_CONTEXT, config.bootstrapQualifier);
  }
  const accountStacks = createAccountStacks(app, config);
  const regionalAccountStacks = createRegionalAccountStacks(app, config);
  const stacks = {} as Record<StageName, PetstoreStack>;
  const regionalStacks = {} as Record<StageName, PetstoreStack[]>;
  const regionKeyStacks = {} as Record<StageName, RegionKeyStack[]>;
  for (const stage of STAGES) {
    const {
      environment,
      regions,
      tableSettings,
      stacks: [home, ...others],
    } = config.stages[stage];
    const scope = new Stage(app, stage, { env: environment });
    const common = { stage, regions: [...regions], tableSettings };
    const homeStack = new PetstoreStack(scope, PETSTORE_STACK_ID, {
      ...common,
      env: environment,
      ...home?.options,
    });
    stacks[stage] = homeStack;
    regionKeyStacks[stage] = [];
    regionalStacks[stage] = others.map(({ env, options }) => {
      const region = env.region as string;
      const keyStack = new RegionKeyStack(scope, regionKeyStackId(region), {
        stage,
        region,
        env,
        removalPolicy: homeStack.logs.removalPolicy,
      });
      // The home stack's replicas name the key by its alias there: the key comes first.
      homeStack.addStackDependency(keyStack);
      regionKeyStacks[stage].push(keyStack);
      const regional = new PetstoreStack(scope, regionalStackId(region), {
        ...common,
        ...options,
        env,
      });
      // Its functions read the replicas the home stack makes (and its key's ARN from keyStack).
      regional.addStackDependency(homeStack);
      regional.addStackDependency(keyStack);
      return regional;
    });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  addControlTowerChecks(app);
  return { app, accountStacks, regionalAccountStacks, stacks, regionalStacks, regionKeyStacks };
}

/**
 * One `AccountStack` per account and region the stages deploy into, so that nothing an account
 * or region holds once is created twice: named `ACCOUNT_STACK_NAME` when the stages share both,
 * else `accountStackName(<first stage there>)`. Given `github`, the first account stack of each
 * account holds the GitHub roles of the stages deploying into that account, with the provider ARN
 * that names the account (an environment-agnostic account takes the one naming no stage's), and
 * lets them reach each of their stage's `regions`.
 *
 * @returns Each stage's account stack.
 * @throws Error when provider ARNs name accounts no stage deploys into.
 */
function createAccountStacks(
  app: App,
  { stages, github }: DeploymentConfig,
): Record<StageName, AccountStack> {
  const where = ({ account, region }: Environment) => `${account}/${region}`;
  const firstStage = (like: (environment: Environment) => boolean) =>
    STAGES.find((stage) => like(stages[stage].environment)) as StageName;
  const accounts = new Set(STAGES.map((stage) => stages[stage].environment.account));
  const accountOf = (arn: string) => arn.split(':')[4];
  const elsewhere = github?.oidcProviderArns.filter((arn) => !accounts.has(accountOf(arn))) ?? [];
  if (elsewhere.length > (accounts.has(undefined) ? 1 : 0)) {
    throw new Error(
      `${APP_CONTEXT.githubOidcProviderArn} names an account no stage deploys into: ${elsewhere.join(', ')}`,
    );
  }
  const single = new Set(STAGES.map((stage) => where(stages[stage].environment))).size === 1;
  const stacks = new Map<StageName, AccountStack>();
  for (const stage of STAGES) {
    const env = stages[stage].environment;
    const first = firstStage((other) => where(other) === where(env));
    if (first !== stage) {
      stacks.set(stage, stacks.get(first) as AccountStack);
      continue;
    }
    const name = single ? ACCOUNT_STACK_NAME : accountStackName(stage);
    const holdsRoles = github && firstStage((other) => other.account === env.account) === stage;
    stacks.set(
      stage,
      new AccountStack(app, name, {
        stackName: name,
        env,
        github: holdsRoles
          ? {
              repository: github.repository,
              qualifier: github.qualifier,
              oidcProviderArn:
                env.account === undefined
                  ? elsewhere[0]
                  : github.oidcProviderArns.find((arn) => accountOf(arn) === env.account),
              stages: STAGES.filter(
                (other) => stages[other].environment.account === env.account,
              ).map((other) => ({
                stage: other,
                regions: stages[other].regions.length > 0 ? stages[other].regions : undefined,
              })),
            }
          : undefined,
      }),
    );
  }
  return Object.fromEntries(stacks) as Record<StageName, AccountStack>;
}

/**
 * One `AccountStack` (API Gateway's CloudWatch role, no GitHub roles: those stay in the account's
 * first account stack) per account and region that a stage deploys into besides its home region
 * and that no stage's home region shares, named `<accountStackName(stage)>-<region>`, e.g.
 * `petstore-account-production-us-west-2`, for the first stage there. The home regions' account
 * stacks keep their names (`createAccountStacks`), so adding a region replaces none.
 */
function createRegionalAccountStacks(app: App, { stages }: DeploymentConfig): AccountStack[] {
  const where = ({ account, region }: Environment) => `${account}/${region}`;
  const covered = new Set(STAGES.map((stage) => where(stages[stage].environment)));
  const stacks: AccountStack[] = [];
  for (const stage of STAGES) {
    for (const region of stages[stage].regions.slice(1)) {
      const env = { account: stages[stage].environment.account, region };
      if (covered.has(where(env))) continue;
      covered.add(where(env));
      const name = `${accountStackName(stage)}-${region}`;
      stacks.push(new AccountStack(app, name, { stackName: name, env }));
    }
  }
  return stacks;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  createPetstoreApp().app.synth();
}
