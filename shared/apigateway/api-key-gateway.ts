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
  findStackTargets,
  moveApiKey,
  ownUsagePlanName,
  registerApiKey,
  usagePlanDestination,
  usagePlansOf,
} from './key-registration.ts';

/**
 * A region's API keys and usage plans through `client` (its region's), in the public API that
 * `targets` names: the home region's, from the function's settings, or another region's, found
 * by name the first time a change needs them (`findStackTargets`) and kept while the container
 * lives; a failed look-up is tried again by the next change.
 */
export class ApiGatewayKeyGateway implements ApiKeyGateway {
  private found?: Promise<ApiGatewayTargets>;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly targets: ApiGatewayTargets | { readonly stackName: string },
  ) {}

  async register(record: ApiKeyRecord, undo: UndoSteps): Promise<string[]> {
    const destination = usagePlanDestination(record.plan, await this.stackTargets());
    const { apiKeyId, usagePlanId } = await registerApiKey(this.client, record, destination, undo);
    const own = destination.kind === 'own' ? 'its own ' : '';
    return [`API Gateway API key ${apiKeyId}, in ${own}usage plan ${usagePlanId}`];
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
    const targets = await this.stackTargets();
    const from = await usagePlansOf(this.client, apiKeyId);
    const ownName = ownUsagePlanName(targets.stackName, keyId);
    const ownPlan = from.find(({ name }) => name === ownName);
    const destination = usagePlanDestination(next.plan, targets);
    const move = { apiKeyId, from, ownPlan, destination };
    const lines = await moveApiKey(this.client, move, previous, next, undo);
    const leftOwnPlan = ownPlan && destination.kind === 'shared' ? ownPlan.id : undefined;
    return {
      lines,
      afterStored: async () => (leftOwnPlan ? [await this.deleteOwnUsagePlan(leftOwnPlan)] : []),
    };
  }

  async disable(keyId: string): Promise<string[]> {
    const apiKeyIds = await apiKeyIdsNamed(this.client, keyId);
    if (apiKeyIds.length === 0) return [`no API Gateway API key is named ${keyId}`];
    for (const apiKeyId of apiKeyIds) await disableApiKey(this.client, apiKeyId);
    return apiKeyIds.map((apiKeyId) => `disabled API Gateway API key ${apiKeyId}`);
  }

  /** The targets given, or those found by the stack's name (see the class). */
  private stackTargets(): Promise<ApiGatewayTargets> {
    const { client, targets } = this;
    if ('restApiId' in targets) return Promise.resolve(targets);
    this.found ??= findStackTargets(client, targets.stackName).catch((error: Error) => {
      this.found = undefined;
      throw error;
    });
    return this.found;
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
