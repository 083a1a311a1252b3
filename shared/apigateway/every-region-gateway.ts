/** The `ApiKeyGateway` port over every region of a stage (docs/operations.md, "Keys in every region"). */
import type { ApiKeyGateway } from '../keys/admin-ports.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import { disableFailed } from '../keys/key-service.ts';
import type { UndoSteps } from '../keys/undo.ts';

/** One region of the stage with its own region's gateway. */
export interface RegionKeyGateway {
  /** The region's name, e.g. `us-west-2`. */
  readonly region: string;
  readonly gateway: ApiKeyGateway;
}

/**
 * A key's API keys in every region, home first, one after the other, all steps in the change's one
 * `UndoSteps` (a failure in any region undoes all of them); each line prefixed with its region.
 */
export class EveryRegionKeyGateway implements ApiKeyGateway {
  /** @param regions The stage's regions, home first (`PETSTORE_REGIONS`), each with its gateway. */
  constructor(private readonly regions: readonly RegionKeyGateway[]) {}

  async register(record: ApiKeyRecord, undo: UndoSteps): Promise<string[]> {
    const lines: string[] = [];
    for (const { region, gateway } of this.regions) {
      lines.push(...inRegion(region, await gateway.register(record, undo)));
    }
    return lines;
  }

  async moveToPlan(previous: ApiKeyRecord, next: ApiKeyRecord, undo: UndoSteps) {
    const lines: string[] = [];
    const afterwards: (() => Promise<string[]>)[] = [];
    for (const { region, gateway } of this.regions) {
      const moved = await gateway.moveToPlan(previous, next, undo);
      lines.push(...inRegion(region, moved.lines));
      afterwards.push(async () => inRegion(region, await moved.afterStored()));
    }
    return {
      lines,
      afterStored: async () => (await Promise.all(afterwards.map((after) => after()))).flat(),
    };
  }

  /** Disables the key's API keys in every region; a region that fails is a line, not a stop. */
  async disable(keyId: string): Promise<string[]> {
    const lines = await Promise.all(
      this.regions.map(({ region, gateway }) =>
        gateway
          .disable(keyId)
          .catch(disableFailed)
          .then((regionLines) => inRegion(region, regionLines)),
      ),
    );
    return lines.flat();
  }
}

/** `lines` prefixed with their region, e.g. `us-west-2: disabled API Gateway API key abc`. */
function inRegion(region: string, lines: readonly string[]): string[] {
  return lines.map((line) => `${region}: ${line}`);
}
