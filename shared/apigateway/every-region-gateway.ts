/** The `ApiKeyGateway` port over every region of a stage (docs/operations.md, "Keys in every region"). */
import type { ApiGatewayStep, ApiKeyGateway } from '../keys/admin-ports.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import type { UndoSteps } from '../keys/undo.ts';

/** One region of the stage with its own region's gateway. */
export interface RegionKeyGateway {
  /** The region's name, e.g. `us-west-2`. */
  readonly region: string;
  readonly gateway: ApiKeyGateway;
}

/**
 * A key's API keys in every region, home first, one after the other, all steps in the change's one
 * `UndoSteps` (a failure in any region undoes all of them); each step names its region.
 */
export class EveryRegionKeyGateway implements ApiKeyGateway {
  /** @param gateways The stage's regions, home first (`PETSTORE_REGIONS`), each with a gateway. */
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
