/**
 * The Petstore CDK app as the infra tests read it: the app of cdk.json's context, synthesized
 * whole once per test run and shared by every file (test/support/synthesized-app.ts), each
 * stage's template, and the logical ids and environment the tests expect.
 *
 * Importing this module makes a temporary directory ({@link outdir}) for the test file's own
 * apps and files, and registers an `afterAll` that removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN_ROUTES } from '../../infra/admin-routes.ts';
import { PORTAL_ROUTES } from '../../infra/portal-routes.ts';
import { AUTHORIZER, ROUTES } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STACK_OUTPUTS, STAGES, type StageName } from '../../infra/stages.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import type { SecretDefinition } from '../../shared/secret-definitions.ts';
import {
  logicalId,
  SYNTHESIS_TIMEOUT_MS,
  type SynthesizedApp,
  synthesizedApp,
} from './synthesized-app.ts';

export { logicalId };

/** Construct ids of the operation functions, one per route. */
export const OPERATION_IDS = ROUTES.map((route) => route.constructId);

/** Construct ids of the public API's functions: one per route, then the authorizer. */
export const FUNCTION_IDS = [...OPERATION_IDS, 'AuthorizerFunction'];

/** Construct ids of the admin API's functions, one per admin route. */
export const ADMIN_FUNCTION_IDS = ADMIN_ROUTES.map((route) => route.constructId);

/** The outputs of the home stack's portal (infra/constructs/portal.ts). */
export const PORTAL_OUTPUTS = [
  STACK_OUTPUTS.portalUrl,
  STACK_OUTPUTS.portalApiBaseUrl,
  STACK_OUTPUTS.userPoolId,
  STACK_OUTPUTS.userPoolClientId,
  STACK_OUTPUTS.portalBucketName,
  STACK_OUTPUTS.portalDistributionId,
];

/** Construct ids of the portal API's functions, one per portal route. */
export const PORTAL_FUNCTION_IDS = PORTAL_ROUTES.map((route) => route.constructId);

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

/**
 * Construct ids of every function: the public API's, the leaked-key endpoint's, the admin API's and
 * the portal API's.
 */
export const ALL_FUNCTION_IDS = [
  ...FUNCTION_IDS,
  SECRET_SCANNING_FUNCTION_ID,
  ...ADMIN_FUNCTION_IDS,
  ...PORTAL_FUNCTION_IDS,
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

/** The test file's own scratch directory, removed after the file. */
export const outdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The app of cdk.json's context; set by the `beforeAll` of {@link synthesizeStages}. */
export let petstore: SynthesizedApp;

/** Each stage's synthesized template; filled by the `beforeAll` of {@link synthesizeStages}. */
export const templates = {} as Record<StageName, Template>;

/**
 * Registers, in the calling test file, a `beforeAll` that reads the app of cdk.json's context
 * ({@link petstore}, {@link templates}), synthesized whole once per run with its checks on: a
 * cdk-nag finding or a broken control anywhere in the app fails the hook.
 */
export function synthesizeStages(): void {
  beforeAll(async () => {
    petstore = await synthesizedApp();
    for (const stage of STAGES) templates[stage] = petstore.stacks[stage].template;
  }, SYNTHESIS_TIMEOUT_MS);
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
