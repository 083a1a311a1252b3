/**
 * The deployment stages and the names by which ops tools find a deployed stage's resources.
 * The CDK app and stack define them; the keys and deploy commands read them.
 */
import { PLANS, type StandardPlanId } from '../shared/plans.ts';

/** The environments of petstore-spec.md ("What the service does"): staging and production. */
export const STAGES = ['staging', 'production'] as const;

/** A deployment stage (one cdk.Stage, one CloudFormation stack). */
export type StageName = (typeof STAGES)[number];

/** Narrows a string (for example a CLI argument) to a {@link StageName}. */
export function isStageName(value: string): value is StageName {
  return (STAGES as readonly string[]).includes(value);
}

/** CloudFormation stack name of a stage, e.g. `petstore-staging`. */
export function stackName(stage: StageName): string {
  return `petstore-${stage}`;
}

/** Names of the stack outputs that ops tools read. */
export const STACK_OUTPUTS = {
  /** Base URL of the API, ending in `/v1/`. */
  apiBaseUrl: 'ApiBaseUrl',
  /** Id of the RestApi. */
  restApiId: 'RestApiId',
  /** Physical name of the keys table. */
  keysTableName: 'KeysTableName',
  /** Physical name of the counters table (rate-limit windows and bans). */
  countersTableName: 'CountersTableName',
} as const;

/** Name of the stack output holding the id of a plan's usage plan, e.g. `UsagePlanIdFree`. */
export function usagePlanOutputName(plan: StandardPlanId): string {
  return `UsagePlanId${PLANS[plan].name}`;
}
