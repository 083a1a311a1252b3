/** The `ApiKeyGateway` port over every region of a stage (docs/operations.md). */
import type { ApiGatewayStep, ApiKeyGateway } from '../keys/admin-ports.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import type { UndoSteps } from '../keys/undo.ts';

/** One region of the stage with its own region's gateway. */
export interface RegionKeyGateway {
  readonly region: string;
  readonly gateway: ApiKeyGateway;
}

/** A key's API keys in every region, home first, in turn: a failure in any undoes all. */
export class EveryRegionKeyGateway implements ApiKeyGateway {
  /** @param gateways Home first. */
  constructor(private readonly gateways: readonly RegionKeyGateway[]) {}

  async regions(): Promise<string[]> {
    return this.gateways.map(({ region }) => region);
  }

  async register(record: ApiKeyRecord, undo: UndoSteps): Promise<ApiGatewayStep[]> {
    const steps: ApiGatewayStep[] = [];
    for (const { gateway } of this.gateways) steps.push(...(await gateway.register(record, undo)));
    return steps;
  }

  async moveToPlan(previous: ApiKeyRecord, next: ApiKeyRecord, undo: UndoSteps) {
    const steps: ApiGatewayStep[] = [];
    const afterwards: (() => Promise<ApiGatewayStep[]>)[] = [];
    for (const { gateway } of this.gateways) {
      const moved = await gateway.moveToPlan(previous, next, undo);
      steps.push(...moved.steps);
      afterwards.push(moved.afterStored);
    }
    return {
      steps,
      afterStored: async () => (await Promise.all(afterwards.map((after) => after()))).flat(),
    };
  }

  /** Disables the key's API keys in every region at once; a region's failure is its own step. */
  async disable(keyId: string): Promise<ApiGatewayStep[]> {
    const steps = await Promise.all(this.gateways.map(({ gateway }) => gateway.disable(keyId)));
    return steps.flat();
  }
}
