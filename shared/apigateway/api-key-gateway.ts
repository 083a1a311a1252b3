/** The `ApiKeyGateway` port on API Gateway (key-registration.ts's steps, each with its undo). */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { ApiKeyGateway } from '../keys/admin-ports.ts';
import { ApiGatewayStepError } from '../keys/errors.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import type { UndoSteps } from '../keys/undo.ts';
import {
  type ApiGatewayTargets,
  apiKeyIdsNamed,
  deleteUsagePlan,
  disableApiKey,
  moveApiKey,
  ownUsagePlanName,
  registerApiKey,
  usagePlanDestination,
  usagePlansOf,
} from './key-registration.ts';

/** A stage's API keys and usage plans through `client`, in the public API `targets` names. */
export class ApiGatewayKeyGateway implements ApiKeyGateway {
  constructor(
    private readonly client: APIGatewayClient,
    private readonly targets: ApiGatewayTargets,
  ) {}

  async register(record: ApiKeyRecord, undo: UndoSteps): Promise<string> {
    const destination = usagePlanDestination(record.plan, this.targets);
    const { apiKeyId, usagePlanId } = await registerApiKey(this.client, record, destination, undo);
    const own = destination.kind === 'own' ? 'its own ' : '';
    return `API Gateway API key ${apiKeyId}, in ${own}usage plan ${usagePlanId}`;
  }

  async moveToPlan(previous: ApiKeyRecord, next: ApiKeyRecord, undo: UndoSteps) {
    const { keyId } = previous;
    const apiKeyIds = await apiKeyIdsNamed(this.client, keyId);
    const [apiKeyId] = apiKeyIds;
    if (apiKeyId === undefined || apiKeyIds.length > 1) {
      throw new ApiGatewayStepError(
        `Key ${keyId} needs exactly one API Gateway API key named after it, and there are ${apiKeyIds.length}: nothing was changed.`,
      );
    }
    const from = await usagePlansOf(this.client, apiKeyId);
    const ownName = ownUsagePlanName(this.targets.stackName, keyId);
    const ownPlan = from.find(({ name }) => name === ownName);
    const destination = usagePlanDestination(next.plan, this.targets);
    const move = { apiKeyId, from, ownPlan, destination };
    const lines = await moveApiKey(this.client, move, previous, next, undo);
    const leftOwnPlan = ownPlan && destination.kind === 'shared' ? ownPlan.id : undefined;
    return {
      lines,
      afterStored: async () => leftOwnPlan && this.deleteOwnUsagePlan(leftOwnPlan),
    };
  }

  async disable(keyId: string): Promise<string[]> {
    const apiKeyIds = await apiKeyIdsNamed(this.client, keyId);
    if (apiKeyIds.length === 0) return [`no API Gateway API key is named ${keyId}`];
    for (const apiKeyId of apiKeyIds) await disableApiKey(this.client, apiKeyId);
    return apiKeyIds.map((apiKeyId) => `disabled API Gateway API key ${apiKeyId}`);
  }

  /** Deletes the own usage plan a key left; a line saying so, or how to delete it by hand. */
  private async deleteOwnUsagePlan(usagePlanId: string): Promise<string> {
    try {
      await deleteUsagePlan(this.client, usagePlanId);
      return `deleted usage plan ${usagePlanId}, the key's own while it was on Enterprise`;
    } catch (error) {
      return `FAILED to delete the old usage plan ${usagePlanId} (${(error as Error).message}): delete it with \`aws apigateway delete-usage-plan --usage-plan-id ${usagePlanId}\``;
    }
  }
}
