/**
 * The Petstore CDK app synthesized once per test run for each configuration (its CDK context), its
 * cloud assembly shared by every test file that reads it, in whichever worker it runs. The first
 * file to ask for a configuration builds the app (each function bundled with the local esbuild,
 * unless the context turns bundling off) and synthesizes it whole, cdk-nag's and Control Tower's
 * checks on, into the run's directory (`cdkAssemblies`, test/support/global-setup.ts); a file
 * asking meanwhile waits for it, and later ones read what it left. Building and checking the app
 * takes tens of seconds of CPU; reading the assembly, well under one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CloudAssembly, CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import { inject } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { STAGES, type StageName } from '../../infra/stages.ts';

/** Bound of a test file's wait for an assembly: building and checking it on a busy machine. */
export const SYNTHESIS_TIMEOUT_MS = 600_000;

/** One stack of a synthesized app, read from its cloud assembly. */
export interface SynthesizedStack {
  /** Its construct path, e.g. `staging/Petstore` or `petstore-account`. */
  readonly path: string;
  readonly stackName: string;
  /** Its account and region (`unknown-account`, `unknown-region` when environment-agnostic). */
  readonly account: string;
  readonly region: string;
  /** The paths of the stacks it depends on. */
  readonly dependencies: readonly string[];
  /** Its template, as CloudFormation gets it. */
  readonly template: Template;
  /** The CDK's error annotations on its constructs (empty when none). */
  readonly errors: readonly string[];
  /** Logical id by construct path (`/staging/Petstore/Api/Resource`), from the assembly's metadata. */
  readonly logicalIds: ReadonlyMap<string, string>;
}

/** A synthesized app: its assembly's directory and its stacks in the roles of `PetstoreApp`. */
export interface SynthesizedApp {
  /** The cloud assembly (`asset.<hash>/` holds each bundle). */
  readonly directory: string;
  readonly stacks: Readonly<Record<StageName, SynthesizedStack>>;
  readonly regionalStacks: Readonly<Record<StageName, readonly SynthesizedStack[]>>;
  readonly regionKeyStacks: Readonly<Record<StageName, readonly SynthesizedStack[]>>;
  readonly accountStacks: Readonly<Record<StageName, SynthesizedStack>>;
  readonly regionalAccountStacks: readonly SynthesizedStack[];
  readonly portalEdgeStacks: Readonly<Record<StageName, SynthesizedStack>>;
}

/** What the synthesizing file leaves beside the assembly: the stacks' roles, or its failure. */
type Outcome =
  | { readonly failure: string }
  | {
      readonly stacks: Record<StageName, string>;
      readonly regionalStacks: Record<StageName, string[]>;
      readonly regionKeyStacks: Record<StageName, string[]>;
      readonly accountStacks: Record<StageName, string>;
      readonly regionalAccountStacks: string[];
      readonly portalEdgeStacks: Record<StageName, string>;
    };

/** Written last, so its presence says the assembly is complete. */
const OUTCOME_FILE = 'petstore-app.json';
const POLL_MS = 250;

/** This worker's apps, by configuration. */
const apps = new Map<string, Promise<SynthesizedApp>>();

/**
 * The app built with cdk.json's context and `context` over it, synthesized whole once per run.
 *
 * @param context CDK context keys over cdk.json's, e.g. `{ 'aws:cdk:bundling-stacks': [] }` to
 *   leave the functions unbundled, or a stage's `petstore:production:regions`.
 * @returns Its stacks, read from the assembly.
 * @throws Error with the app's own message when building or synthesizing it failed (a refused
 *   context value, a cdk-nag finding, a broken control), in this file or the one that built it;
 *   or when no assembly appeared within {@link SYNTHESIS_TIMEOUT_MS}.
 */
export function synthesizedApp(context: Record<string, unknown> = {}): Promise<SynthesizedApp> {
  const full = { ...cdkJson.context, ...context };
  const key = createHash('sha256').update(stableJson(full)).digest('hex').slice(0, 16);
  let app = apps.get(key);
  if (!app) {
    app = assembly(join(inject('cdkAssemblies'), key), full);
    apps.set(key, app);
  }
  return app;
}

/**
 * The CloudFormation logical id of the construct at `path` under `stack` (e.g. `Api/Authorizer`),
 * following default children (`Resource`, `Default`) down to the CloudFormation resource: of a
 * synthesized stack, from its assembly's metadata; of a stack a test built, from its constructs.
 *
 * @throws Error naming `path` when no construct at or below it is a CloudFormation resource.
 */
export function logicalId(stack: SynthesizedStack | Stack, path: string): string {
  const [stackPath, ids] =
    stack instanceof Stack
      ? [stack.node.path, logicalIdsOf(stack)]
      : [stack.path, stack.logicalIds];
  let at = `/${stackPath}/${path}`;
  for (;;) {
    const id = ids.get(at);
    if (id) return id;
    const child = ['Resource', 'Default']
      .map((name) => `${at}/${name}`)
      .find((candidate) => [...ids.keys()].some((p) => isAtOrBelow(p, candidate)));
    if (!child) throw new Error(`${path} has no CloudFormation resource in ${stackPath}`);
    at = child;
  }
}

/** The logical ids of a stack's CloudFormation elements, by construct path (`/Home/Api/Resource`). */
function logicalIdsOf(stack: Stack): Map<string, string> {
  return new Map(
    stack.node
      .findAll()
      .filter(CfnElement.isCfnElement)
      .map((element) => [`/${element.node.path}`, stack.getLogicalId(element)]),
  );
}

/** Synthesizes into `directory` unless another file does or did, then reads the assembly. */
async function assembly(directory: string, context: Record<string, unknown>) {
  const outcomeFile = join(directory, OUTCOME_FILE);
  if (claim(directory)) writeOutcome(outcomeFile, synthesize(directory, context));
  const deadline = Date.now() + SYNTHESIS_TIMEOUT_MS;
  while (!existsSync(outcomeFile)) {
    if (Date.now() > deadline) throw new Error(`No assembly in ${directory} in time`);
    await new Promise((wake) => setTimeout(wake, POLL_MS));
  }
  const outcome = JSON.parse(readFileSync(outcomeFile, 'utf8')) as Outcome;
  if ('failure' in outcome) throw new Error(outcome.failure);
  return read(directory, outcome);
}

/** Takes the configuration's directory: true for the first file of the run to ask. */
function claim(directory: string): boolean {
  try {
    mkdirSync(directory);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Builds and synthesizes the app, with its checks: the stacks' paths by role, or the failure. */
function synthesize(directory: string, context: Record<string, unknown>): Outcome {
  let petstore: PetstoreApp;
  try {
    petstore = createPetstoreApp({ context, outdir: directory });
    petstore.app.synth();
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
  const paths = (stacks: readonly Stack[]) => stacks.map((stack) => stack.node.path);
  const byStage = <T>(of: (stage: StageName) => T) =>
    Object.fromEntries(STAGES.map((stage) => [stage, of(stage)])) as Record<StageName, T>;
  return {
    stacks: byStage((stage) => petstore.stacks[stage].node.path),
    regionalStacks: byStage((stage) => paths(petstore.regionalStacks[stage])),
    regionKeyStacks: byStage((stage) => paths(petstore.regionKeyStacks[stage])),
    accountStacks: byStage((stage) => petstore.accountStacks[stage].node.path),
    regionalAccountStacks: paths(petstore.regionalAccountStacks),
    portalEdgeStacks: byStage((stage) => petstore.portalEdgeStacks[stage].node.path),
  };
}

/** Writes the outcome whole (through a rename), so that a reader never sees half of it. */
function writeOutcome(file: string, outcome: Outcome): void {
  writeFileSync(`${file}.partial`, JSON.stringify(outcome));
  renameSync(`${file}.partial`, file);
}

/** The synthesized app of `directory`, its stacks in the roles `outcome` names. */
function read(directory: string, outcome: Exclude<Outcome, { failure: string }>): SynthesizedApp {
  const artifacts = new Map(
    new CloudAssembly(directory).stacksRecursively.map((artifact) => [
      artifact.hierarchicalId,
      artifact,
    ]),
  );
  const stackAt = (path: string): SynthesizedStack => {
    const artifact = artifacts.get(path);
    if (!artifact) throw new Error(`No stack ${path} in ${directory}`);
    return synthesizedStack(artifact);
  };
  const byStage = <T>(of: (stage: StageName) => T) =>
    Object.fromEntries(STAGES.map((stage) => [stage, of(stage)])) as Record<StageName, T>;
  return {
    directory,
    stacks: byStage((stage) => stackAt(outcome.stacks[stage])),
    regionalStacks: byStage((stage) => outcome.regionalStacks[stage].map(stackAt)),
    regionKeyStacks: byStage((stage) => outcome.regionKeyStacks[stage].map(stackAt)),
    accountStacks: byStage((stage) => stackAt(outcome.accountStacks[stage])),
    regionalAccountStacks: outcome.regionalAccountStacks.map(stackAt),
    portalEdgeStacks: byStage((stage) => stackAt(outcome.portalEdgeStacks[stage])),
  };
}

function synthesizedStack(artifact: CloudFormationStackArtifact): SynthesizedStack {
  let template: Template | undefined;
  return {
    path: artifact.hierarchicalId,
    stackName: artifact.stackName,
    account: artifact.environment.account,
    region: artifact.environment.region,
    dependencies: artifact.dependencies
      .filter((dependency) => dependency instanceof CloudFormationStackArtifact)
      .map((dependency) => dependency.hierarchicalId),
    // Parsed when first read: a stage's template is some 230 KB.
    get template() {
      template ??= Template.fromJSON(artifact.template);
      return template;
    },
    errors: artifact.messages
      .filter((message) => message.level === 'error')
      .map((message) => `${message.id}: ${String(message.entry.data)}`),
    logicalIds: new Map(
      artifact
        .findMetadataByType('aws:cdk:logicalId')
        .map((entry) => [entry.path, String(entry.data)]),
    ),
  };
}

/** Whether construct path `path` is `ancestor` or below it. */
function isAtOrBelow(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** JSON with every object's keys sorted, so that equal contexts give equal text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}
