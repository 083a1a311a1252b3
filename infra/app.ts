/**
 * The CDK app: one `cdk.Stage` per entry of `STAGES`, each holding its `PortalEdgeStack` (us-east-1)
 * and one `PetstoreStack` per region of the stage (the home region's, with the portal, then each
 * other region's with its `RegionKeyStack`), and an `AccountStack` per account and region the
 * stages use;
 * cdk-nag's AWS Solutions checks fail an unacknowledged finding, AWS Control Tower's proactive
 * controls (infra/control-tower.ts) a violation.
 */
import { pathToFileURL } from 'node:url';
import { App, type AppProps, BOOTSTRAP_QUALIFIER_CONTEXT, Stage, Validations } from 'aws-cdk-lib';
import { FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AccountStack } from './constructs/account-stack.ts';
import { CLOUDFRONT_WEB_ACL_REGION, PortalEdgeStack } from './constructs/portal-edge-stack.ts';
import { RegionKeyStack } from './constructs/region-key-stack.ts';
import { addControlTowerChecks } from './control-tower.ts';
import { deploymentConfig } from './deployment-config.ts';
import { PetstoreStack } from './petstore-stack.ts';
import { STAGES, type StageName } from './stages.ts';

/** Construct id of the stack inside each stage: the CLI selects it as `<stage>/Petstore`. */
export const PETSTORE_STACK_ID = 'Petstore';

/** Construct id of a stage's stack in a region other than its home, e.g. `Petstore-us-west-2`. */
export function regionalStackId(region: string): string {
  return `${PETSTORE_STACK_ID}-${region}`;
}

/** Construct id of a stage's portal edge stack (us-east-1): the CLI selects `<stage>/PortalEdge`. */
export const PORTAL_EDGE_STACK_ID = 'PortalEdge';

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
  /** Each stage's portal edge stack: the CloudFront-scope web ACL, in us-east-1. */
  readonly portalEdgeStacks: Readonly<Record<StageName, PortalEdgeStack>>;
}

/**
 * Builds the app. Bundles the functions (local esbuild, a few seconds) but does not synthesize.
 *
 * The stacks are composed from `deploymentConfig` (infra/deployment-config.ts: every context
 * key, read and checked before any stack exists). A `petstore:bootstrapQualifier` becomes the
 * CDK's own (`@aws-cdk/core:bootstrapQualifier`).
 *
 * @param props App props; tests pass `context` (the feature flags of `cdk.json`) and `outdir`.
 * @throws Error when a context value is refused (`deploymentConfig`).
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
  const accountStacks = {} as Record<StageName, AccountStack>;
  const regionalAccountStacks: AccountStack[] = [];
  for (const { name, env, stages, github } of config.accountStacks) {
    const accountStack = new AccountStack(app, name, { stackName: name, env, github });
    for (const stage of stages) accountStacks[stage] = accountStack;
    if (stages.length === 0) regionalAccountStacks.push(accountStack);
  }
  const stacks = {} as Record<StageName, PetstoreStack>;
  const regionalStacks = {} as Record<StageName, PetstoreStack[]>;
  const regionKeyStacks = {} as Record<StageName, RegionKeyStack[]>;
  const portalEdgeStacks = {} as Record<StageName, PortalEdgeStack>;
  for (const stage of STAGES) {
    const {
      environment,
      regions,
      tableSettings,
      portal,
      stacks: [home, ...others],
    } = config.stages[stage];
    const scope = new Stage(app, stage, { env: environment });
    const common = { stage, regions: [...regions], tableSettings };
    // An environment-agnostic stage (no region known: only outside the CDK CLI, which always
    // knows one) keeps its edge stack agnostic too, since a cross-region reference needs both.
    const edgeRegion = environment.region === undefined ? undefined : CLOUDFRONT_WEB_ACL_REGION;
    const edge = new PortalEdgeStack(scope, PORTAL_EDGE_STACK_ID, {
      stage,
      env: { account: environment.account, region: edgeRegion },
    });
    portalEdgeStacks[stage] = edge;
    const homeStack = new PetstoreStack(scope, PETSTORE_STACK_ID, {
      ...common,
      env: environment,
      ...home?.options,
      portal: { ...portal, webAclArn: edge.webAcl.attrArn },
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
  addControlTowerChecks(
    app,
    new Set(STAGES.filter((stage) => config.stages[stage].portal.domain !== undefined)),
  );
  return {
    app,
    accountStacks,
    regionalAccountStacks,
    stacks,
    regionalStacks,
    regionKeyStacks,
    portalEdgeStacks,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  createPetstoreApp().app.synth();
}
