/**
 * Pet ids in leased blocks (hi/lo) of adaptive size: item `id` 0 of the pets table holds `value`,
 * the last id leased; an instance takes a block of ids with one atomic `ADD` and hands them out
 * from memory.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCK_LIFETIME_MS } from '../pets/id-order.ts';

/** Partition key of the pets-table item that holds the pet-id sequence (no pet has id 0). */
export const PET_ID_SEQUENCE_ID = 0;

/**
 * Most ids an instance leases at once. At a steady rate an instance's blocks either hold this
 * many ids, all used, or last about their lifetime, so at 10,000 creates/s over N instances the
 * sequence item takes at most 10,000 / 100 + N / (ID_BLOCK_LIFETIME_MS / 1000) leases a second,
 * e.g. 300 with 200 instances: well under the item's 1,000 writes/s (docs/architecture.md, "Pet
 * ids").
 */
export const DEFAULT_ID_BLOCK_SIZE = 100;

/** Options of {@link IdBlocks}. */
export interface IdBlocksOptions {
  /** Most ids per lease, a whole number >= 1. @default DEFAULT_ID_BLOCK_SIZE */
  readonly maxBlockSize?: number;
  /** Clock of the leases' lifetime, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** A leased block: ids `next` to `last` are still this instance's to hand out. */
interface Block {
  next: number;
  readonly last: number;
  /** Ids the lease took. */
  readonly size: number;
  /** Epoch ms, taken before the lease was sent: the block is used until this + the lifetime. */
  readonly leasedAt: number;
}

/**
 * Issues pet ids: positive safe integers, unique across every instance and never reused (each id
 * belongs to one lease, and ids a block still holds when it is dropped are discarded). Uniqueness
 * rests on the atomic `ADD` alone; the clock only bounds order: a block is used for at most
 * {@link ID_BLOCK_LIFETIME_MS} after its lease, so ids are k-sorted by creation time within it.
 *
 * Block sizes adapt to the instance's rate: the first lease takes 1 id; a block spent while still
 * fresh makes the next lease twice its size (at most `maxBlockSize`); a block that expires makes
 * the next lease as large as the ids it gave out (at least 1). So an instance creating at most
 * one pet per lifetime leases 1 id per create and, alone, issues 1, 2, 3, …; a busy one reaches
 * `maxBlockSize` ids per lease after a few doublings (7 from 1 to 100).
 */
export class IdBlocks {
  private readonly maxBlockSize: number;
  private readonly now: () => number;
  private block: Block | undefined;
  /** The lease in flight, which concurrent callers share, and the signal it was sent with. */
  private leasing: { readonly signal?: AbortSignal; readonly done: Promise<void> } | undefined;

  /**
   * @param table The pets table, which holds the sequence item.
   * @throws Error when `maxBlockSize` is not a whole number >= 1.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    options: IdBlocksOptions = {},
  ) {
    this.maxBlockSize = options.maxBlockSize ?? DEFAULT_ID_BLOCK_SIZE;
    if (!Number.isSafeInteger(this.maxBlockSize) || this.maxBlockSize < 1) {
      throw new Error(`The id block size must be a whole number >= 1, not ${this.maxBlockSize}`);
    }
    this.now = options.now ?? Date.now;
  }

  /** Leases a block unless this instance holds a fresh one with ids left. */
  async prepare(signal?: AbortSignal): Promise<void> {
    if (!this.ready()) await this.lease(signal);
  }

  /** The next id: from memory, after a lease when the block is spent or expired. */
  async next(signal?: AbortSignal): Promise<number> {
    while (!this.ready()) await this.lease(signal);
    const block = this.block as Block;
    const id = block.next;
    block.next += 1;
    return id;
  }

  private ready(): boolean {
    const block = this.block;
    return block !== undefined && block.next <= block.last && this.fresh(block);
  }

  private fresh(block: Block): boolean {
    return this.now() - block.leasedAt < ID_BLOCK_LIFETIME_MS;
  }

  /** Ids the next lease takes: see the class's docstring. */
  private nextSize(): number {
    const block = this.block;
    if (block === undefined) return 1;
    // Not ready yet fresh: spent before its lifetime was up, so too small for this instance.
    if (this.fresh(block)) return Math.min(2 * block.size, this.maxBlockSize);
    const used = block.next - (block.last - block.size + 1);
    return Math.max(used, 1);
  }

  /**
   * One `ADD :size` on the sequence item (created at 0 on a new table), shared by concurrent
   * callers and cut short by the first one's deadline; a caller whose own deadline has not passed
   * then leases again.
   */
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

  private async send(signal: AbortSignal | undefined): Promise<void> {
    const leasedAt = this.now();
    const size = this.nextSize();
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id: PET_ID_SEQUENCE_ID },
        UpdateExpression: 'ADD #value :size',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':size': size },
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: signal },
    );
    const last = Number(Attributes?.value);
    this.block = { next: last - size + 1, last, size, leasedAt };
  }
}
