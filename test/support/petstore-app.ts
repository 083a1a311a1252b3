/**
 * The Petstore CDK app as the infra tests read it: the app of cdk.json's feature flags,
 * synthesized once per test file (building it bundles every function with the local esbuild, which
 * takes seconds), each stage's template, and the logical ids and environment the tests expect.
 *
 * Importing this module makes a temporary assets directory ({@link outdir}) for the test file and
 * registers an `afterAll` that removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { ADMIN_ROUTES } from '../../infra/admin-routes.ts';
import { createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { AUTHORIZER, ROUTES } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STAGES, type StageName } from '../../infra/stages.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import type { SecretDefinition } from '../../shared/secret-definitions.ts';

/** Construct ids of the operation functions, one per route. */
export const OPERATION_IDS = ROUTES.map((route) => route.constructId);

/** Construct ids of the public API's functions: one per route, then the authorizer. */
export const FUNCTION_IDS = [...OPERATION_IDS, 'AuthorizerFunction'];

/** Construct ids of the admin API's functions, one per admin route. */
export const ADMIN_FUNCTION_IDS = ADMIN_ROUTES.map((route) => route.constructId);

/** Construct id of the leaked-key endpoint's function (infra/secret-scanning-route.ts). */
export const SECRET_SCANNING_FUNCTION_ID = SECRET_SCANNING_ROUTE.constructId;

/**
 * The actions of the leaked-key endpoint's one statement on the keys table (IAM merges its row's
 * two accesses there): the batch read and the key service's revocation.
 */
export const SECRET_SCANNING_KEY_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:GetItem',
  'dynamodb:UpdateItem',
];

/** Construct ids of every function: the public API's, the leaked-key endpoint's, the admin API's. */
export const ALL_FUNCTION_IDS = [
  ...FUNCTION_IDS,
  SECRET_SCANNING_FUNCTION_ID,
  ...ADMIN_FUNCTION_IDS,
];

/** The secrets that the definition of the function `constructId` names (its row's `secrets`). */
export function secretsOf(constructId: string): readonly SecretDefinition[] {
  return [...ROUTES, AUTHORIZER].find((fn) => fn.constructId === constructId)?.secrets ?? [];
}

/** The ban variables an operation function gets for `policy`. */
export function banEnvironment(policy: BanPolicy): Record<string, string> {
  return {
    RATE_LIMIT_BAN_THRESHOLD: String(policy.threshold),
    RATE_LIMIT_BAN_SECONDS: String(policy.durationSeconds),
  };
}

/** The test file's assets directory (the bundles land in `asset.<hash>/`), removed after the file. */
export const outdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The app of cdk.json's context; set by the `beforeAll` of {@link synthesizeStages}. */
export let petstore: PetstoreApp;

/** Each stage's synthesized template; filled by the `beforeAll` of {@link synthesizeStages}. */
export const templates = {} as Record<StageName, Template>;

/**
 * Registers, in the calling test file, a `beforeAll` that builds the app with cdk.json's feature
 * flags into {@link outdir} ({@link petstore}) and synthesizes each stage once for the whole file
 * ({@link templates}).
 *
 * @param options.wholeApp Also synthesize the whole app (both stages and the account stack) in
 *   the hook, which the first `Annotations.fromStack` or `Template.fromStack(petstore.accountStacks.staging)`
 *   would otherwise do inside its test (its first time costs seconds).
 * @default options.wholeApp - false
 */
export function synthesizeStages({ wholeApp = false }: { wholeApp?: boolean } = {}): void {
  beforeAll(() => {
    // GIVEN the app with cdk.json's feature flags; building it bundles every function (seconds)
    petstore = createPetstoreApp({ context: cdkJson.context, outdir });
    // WHEN each stage is synthesized, once for the whole file
    for (const stage of STAGES) templates[stage] = Template.fromStack(petstore.stacks[stage]);
    if (wholeApp) petstore.app.synth();
  });
}

/**
 * The CloudFormation logical id of the construct at `path` under the stack (e.g. `Api/Authorizer`),
 * following default children down to the CloudFormation resource.
 *
 * @throws Error naming `path` when no construct on the way down is a CloudFormation resource
 *   (and the construct tree's own error when a segment of `path` names no child).
 */
export function logicalId(stack: Stack, path: string): string {
  let construct: IConstruct = stack.node.findChild(path.split('/')[0] ?? path);
  for (const id of path.split('/').slice(1)) construct = construct.node.findChild(id);
  while (!CfnElement.isCfnElement(construct)) {
    const child = construct.node.defaultChild;
    if (!child) throw new Error(`${path} has no CloudFormation resource`);
    construct = child;
  }
  return stack.getLogicalId(construct);
}

/**
 * One stage of {@link petstore}, for the tests inside `describe.each(STAGES)`: its stack and
 * template (read when a test runs, after {@link synthesizeStages}' `beforeAll`), the `Fn::GetAtt`
 * of a table's ARN by construct id, and the `Ref` of the API stage v1.
 */
export function stageOf(stage: StageName) {
  const stack = () => petstore.stacks[stage];
  const template = () => templates[stage];
  const arnOf = (tableId: string) => ({ 'Fn::GetAtt': [logicalId(stack(), tableId), 'Arn'] });
  const apiStageRef = () => ({
    Ref: Object.keys(
      template().findResources('AWS::ApiGateway::Stage', {
        Properties: { StageName: API_STAGE_NAME },
      }),
    )[0],
  });
  return { stack, template, arnOf, apiStageRef };
}
