/** Pet ids in leased blocks (hi/lo) on the pets table's sequence items (docs/architecture.md). */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCK_LIFETIME_MS } from '../pets/id-order.ts';
import { isMultiRegion, MAX_REGIONS, ONE_REGION, type Regions } from '../regions.ts';

/** Partition key of the pets-table item that holds the pet-id sequence (no pet has id 0). */
export const PET_ID_SEQUENCE_ID = 0;

/** Partition key of the sequence item of region `at`: 0 for the home region, else `-at`. */
export function sequenceIdOf(at: number): number {
  return at === 0 ? PET_ID_SEQUENCE_ID : -at;
}

/** Zero of the sequences' clock floor (several regions), epoch ms. */
export const ID_FLOOR_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Sequence values the clock floor gains per ms (why 100: docs/architecture.md, "Regions"). */
export const ID_FLOOR_PER_MS = 100;

/** The least sequence value a lease at `nowMs` (epoch ms) takes with several regions. */
export function idFloor(nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - ID_FLOOR_EPOCH_MS) * ID_FLOOR_PER_MS));
}

/** The id of sequence value `value` of region `at` (@default regions.own): its residue modulo 16. */
export function petIdOf(value: number, regions: Regions, at = regions.own): number {
  return isMultiRegion(regions) ? value * MAX_REGIONS + at : value;
}

/** Most ids an instance leases at once (the sequence item's write load: docs/architecture.md). */
export const DEFAULT_ID_BLOCK_SIZE = 100;

/** A leased block: values `next` to `last` are still this instance's to hand out. */
interface Block {
  next: number;
  readonly last: number;
  readonly size: number;
  /** Epoch ms, before the lease was sent: the lifetime counts from it. */
  readonly leasedAt: number;
}

/**
 * Issues pet ids: positive safe integers, unique across instances and regions, never reused, and
 * k-sorted (a block lives {@link ID_BLOCK_LIFETIME_MS}); the blocks' sizes and the regions'
 * sequences: docs/architecture.md, "The stores" and "Regions".
 */
export class IdBlocks {
  private block: Block | undefined;
  /** The lease in flight, which concurrent callers share, and the signal it was sent with. */
  private leasing: { readonly signal?: AbortSignal; readonly done: Promise<void> } | undefined;

  /**
   * @param table The pets table. @param regions @default ONE_REGION
   * @param now Clock of the leases' lifetime and the floor, epoch ms. @default Date.now
   * @param maxBlockSize Most ids per lease. @default DEFAULT_ID_BLOCK_SIZE
   * @throws Error when `maxBlockSize` is not a whole number >= 1.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly regions: Regions = ONE_REGION,
    private readonly now: () => number = Date.now,
    private readonly maxBlockSize: number = DEFAULT_ID_BLOCK_SIZE,
  ) {
    if (!Number.isSafeInteger(maxBlockSize) || maxBlockSize < 1) {
      throw new Error(`The id block size must be a whole number >= 1, not ${maxBlockSize}`);
    }
  }

  /** Leases a block unless this instance holds a fresh one with ids left. */
  async prepare(signal?: AbortSignal): Promise<void> {
    if (!this.ready()) await this.lease(signal);
  }

  /** The next id: from memory, after a lease when the block is spent or expired. */
  async next(signal?: AbortSignal): Promise<number> {
    while (!this.ready()) await this.lease(signal);
    const block = this.block as Block;
    return petIdOf(block.next++, this.regions);
  }

  private ready(): boolean {
    const block = this.block;
    return block !== undefined && block.next <= block.last && this.fresh(block);
  }

  private fresh(block: Block): boolean {
    return this.now() - block.leasedAt < ID_BLOCK_LIFETIME_MS;
  }

  private nextSize(): number {
    const block = this.block;
    if (block === undefined) return 1;
    // Not ready yet fresh: spent before its lifetime was up, so too small for this instance.
    if (this.fresh(block)) return Math.min(2 * block.size, this.maxBlockSize);
    const used = block.next - (block.last - block.size + 1);
    return Math.max(used, 1);
  }

  /** One `ADD :size`, shared by concurrent callers; one cut short by another's deadline retries. */
  private async lease(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      this.leasing ??= {
        signal,
        done: this.send(signal).finally(() => {
          this.leasing = undefined;
        }),
      };
      const leasing = this.leasing;
      try {
        return await leasing.done;
      } catch (error) {
        const cutByAnother = leasing.signal !== signal && leasing.signal?.aborted === true;
        if (!cutByAnother || signal?.aborted) throw error;
      }
    }
  }

  /** One lease: with several regions above the clock floor when it can, else `ADD :size`. */
  private async send(signal: AbortSignal | undefined): Promise<void> {
    const leasedAt = this.now();
    const size = this.nextSize();
    const above = isMultiRegion(this.regions)
      ? await this.aboveFloor(idFloor(leasedAt), size, signal)
      : undefined;
    const last =
      above ?? Number((await this.update(signal, 'ADD #value :size', { ':size': size }))?.value);
    this.block = { next: last - size + 1, last, size, leasedAt };
  }

  /** Takes `floor + 1` to `floor + size` if the sequence is below `floor`. @returns The last, or `undefined`. */
  private async aboveFloor(floor: number, size: number, signal: AbortSignal | undefined) {
    try {
      await this.update(signal, 'SET #value = :last', { ':last': floor + size, ':floor': floor });
      return floor + size;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return undefined;
    }
  }

  /** One UpdateItem on this region's sequence item; with `:floor`, only while it is below. */
  private async update(
    signal: AbortSignal | undefined,
    UpdateExpression: string,
    ExpressionAttributeValues: Record<string, number>,
  ): Promise<Record<string, unknown> | undefined> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id: sequenceIdOf(this.regions.own) },
        UpdateExpression,
        ...(':floor' in ExpressionAttributeValues && {
          ConditionExpression: 'attribute_not_exists(#value) OR #value < :floor',
        }),
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues,
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: signal },
    );
    return Attributes;
  }
}
