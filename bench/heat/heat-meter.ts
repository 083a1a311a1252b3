/**
 * The heat meter: every call's units (charges.ts) summed per (table or GSI, partition key value)
 * and simulated second, and the hottest partitions' units per second as a share of what one
 * DynamoDB partition serves (what it measures: docs/measurements.md, "Partition heat").
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CapacityKind, type Charge, chargesOf, type TableSchema } from './charges.ts';

/**
 * Units per second one partition serves at most: 1,000 WCU and 3,000 RCU (DynamoDB Developer
 * Guide, "Burst and adaptive capacity"; adaptive capacity does not lift it for one key value).
 */
export const PARTITION_LIMITS: Readonly<Record<CapacityKind, number>> = {
  write: 1_000,
  read: 3_000,
};

/** Largest share of its limit a partition may reach: keys may share a physical partition. */
export const SHARE_THRESHOLD = 0.8;

/** One partition's load in its busiest measured second. */
export interface PartitionHeat {
  readonly target: string;
  readonly partition: string;
  readonly kind: CapacityKind;
  /** Units in the busiest measured second, scaled (see {@link HeatMeter.hottest}). */
  readonly unitsPerSecond: number;
  /** `unitsPerSecond` / the kind's {@link PARTITION_LIMITS}. */
  readonly share: number;
}

/** Identifies a partition and kind within one second's sums. */
const idOf = ({ target, partition, kind }: Omit<Charge, 'units'>) =>
  `${kind} ${target} ${partition}`;

/** Units per partition and simulated second. */
export class HeatMeter {
  /** Epoch second → partition id → its charge with the second's units summed. */
  private readonly seconds = new Map<number, Map<string, Charge>>();

  /** Adds `charges` to the simulated second holding `atMs` (epoch milliseconds). */
  record(atMs: number, charges: readonly Charge[]): void {
    const second = Math.floor(atMs / 1000);
    const sums = this.seconds.get(second) ?? new Map<string, Charge>();
    this.seconds.set(second, sums);
    for (const charge of charges) {
      const id = idOf(charge);
      const sum = sums.get(id);
      sums.set(id, { ...charge, units: (sum?.units ?? 0) + charge.units });
    }
  }

  /**
   * Every partition charged in the whole seconds `[fromMs, fromMs + seconds × 1000)`, with its
   * busiest second's units × `scale`, by share of its limit, largest first.
   * @param scale The factor of a sampled run (instances simulated / instances run). @default 1
   */
  hottest(fromMs: number, seconds: number, scale = 1): PartitionHeat[] {
    const busiest = new Map<string, Charge>();
    const first = Math.floor(fromMs / 1000);
    for (let second = first; second < first + seconds; second += 1) {
      for (const [id, charge] of this.seconds.get(second) ?? []) {
        if (charge.units > (busiest.get(id)?.units ?? 0)) busiest.set(id, charge);
      }
    }
    return [...busiest.values()]
      .map(({ target, partition, kind, units }) => ({
        target,
        partition,
        kind,
        unitsPerSecond: units * scale,
        share: (units * scale) / PARTITION_LIMITS[kind],
      }))
      .sort((a, b) => b.share - a.share);
  }
}

/** The partitions above {@link SHARE_THRESHOLD}: the bench exits non-zero when there is one. */
export function overThreshold(heats: readonly PartitionHeat[]): PartitionHeat[] {
  return heats.filter((heat) => heat.share > SHARE_THRESHOLD);
}

/**
 * Charges every call `client` sends while `timeOf` names a simulated time (a scenario's request)
 * to `meter`, as charges.ts bills it; calls outside requests (setup, seeding) are not charged.
 * Asks for `ReturnConsumedCapacity: INDEXES`.
 * @param timeOf The simulated time of the request making the call, epoch ms, or undefined.
 */
export function meterHeat(
  client: DynamoDBDocumentClient,
  schema: TableSchema,
  meter: HeatMeter,
  timeOf: () => number | undefined,
): void {
  client.middlewareStack.add(
    (next, context) =>
      async function chargeCall(args) {
        const at = timeOf();
        if (at === undefined) return next(args);
        const input = {
          ...(args.input as Record<string, unknown>),
          ReturnConsumedCapacity: 'INDEXES',
        };
        const operation = context.commandName ?? '';
        try {
          const result = await next({ ...args, input });
          meter.record(
            at,
            chargesOf(
              { operation, input, output: result.output as Record<string, unknown> },
              schema,
            ),
          );
          return result;
        } catch (error) {
          meter.record(at, chargesOf({ operation, input, error }, schema));
          throw error;
        }
      },
    { step: 'initialize', name: 'heatMeter' },
  );
}
