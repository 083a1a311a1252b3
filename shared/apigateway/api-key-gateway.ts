/** The `ApiKeyGateway` port on API Gateway (key-registration.ts's steps, each with its undo). */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { ApiGatewayStep, ApiKeyGateway } from '../keys/admin-ports.ts';
import { ApiGatewayStepError } from '../keys/key-errors.ts';
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
  type RegionStep,
  registerApiKey,
  usagePlanDestination,
  usagePlansOf,
} from './key-registration.ts';

/**
 * A region's API keys and usage plans through `client`, in the public API `targets` names: the home
 * region's, or another's found by name at the first change that needs them (`findStackTargets`).
 */
export class ApiGatewayKeyGateway implements ApiKeyGateway {
  private found?: Promise<ApiGatewayTargets>;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly targets: ApiGatewayTargets | { readonly stackName: string },
  ) {}

  async regions(): Promise<string[]> {
    return [await this.client.config.region()];
  }

  async register(record: ApiKeyRecord, undo: UndoSteps): Promise<ApiGatewayStep[]> {
    const destination = usagePlanDestination(record.plan, await this.stackTargets());
    const { apiKeyId, usagePlanId } = await registerApiKey(this.client, record, destination, undo);
    const steps: RegionStep[] = [{ step: 'createApiKey', outcome: 'done', apiKeyId }];
    if (destination.kind === 'own') {
      const usagePlanName = ownUsagePlanName(destination.stack, record.keyId);
      steps.push({ step: 'createUsagePlan', outcome: 'done', usagePlanId, usagePlanName });
    }
    steps.push({ step: 'addToUsagePlan', outcome: 'done', apiKeyId, usagePlanId });
    return this.inRegion(steps);
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
    const steps = await moveApiKey(this.client, move, previous, next, undo);
    const leftOwnPlan = ownPlan && destination.kind === 'shared' ? ownPlan.id : undefined;
    return {
      steps: await this.inRegion(steps),
      afterStored: async () =>
        this.inRegion(leftOwnPlan ? [await this.deleteOwnUsagePlan(leftOwnPlan)] : []),
    };
  }

  async disable(keyId: string): Promise<ApiGatewayStep[]> {
    const step = 'disableApiKey';
    let apiKeyIds: string[];
    try {
      apiKeyIds = await apiKeyIdsNamed(this.client, keyId);
    } catch (error) {
      return this.inRegion([{ step, outcome: 'failed', error: errorOf(error) }]);
    }
    if (apiKeyIds.length === 0) return this.inRegion([{ step, outcome: 'notFound' }]);
    const steps: RegionStep[] = [];
    // One after the other, each whatever the others did: an API key left enabled is one too many.
    for (const apiKeyId of apiKeyIds) {
      steps.push(
        await disableApiKey(this.client, apiKeyId).then(
          (): RegionStep => ({ step, outcome: 'done', apiKeyId }),
          (error): RegionStep => ({ step, outcome: 'failed', apiKeyId, error: errorOf(error) }),
        ),
      );
    }
    return this.inRegion(steps);
  }

  /** The targets given, or those found (kept; a failed look-up is tried again). */
  private stackTargets(): Promise<ApiGatewayTargets> {
    const { client, targets } = this;
    if ('restApiId' in targets) return Promise.resolve(targets);
    this.found ??= findStackTargets(client, targets.stackName).catch((error: Error) => {
      this.found = undefined;
      throw error;
    });
    return this.found;
  }

  /** Deletes the own usage plan a key left: its step, `failed` when API Gateway refuses. */
  private async deleteOwnUsagePlan(usagePlanId: string): Promise<RegionStep> {
    const step = 'deleteUsagePlan';
    return deleteUsagePlan(this.client, usagePlanId).then(
      (): RegionStep => ({ step, outcome: 'done', usagePlanId }),
      (error): RegionStep => ({ step, outcome: 'failed', usagePlanId, error: errorOf(error) }),
    );
  }

  private async inRegion(steps: readonly RegionStep[]): Promise<ApiGatewayStep[]> {
    const region = await this.client.config.region();
    return steps.map((step) => ({ region, ...step }));
  }
}

/** A failed step's error: the client's error name (e.g. `ConflictException`) and message. */
function errorOf(error: unknown): { code: string; message: string } {
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  return { code: name, message };
}
