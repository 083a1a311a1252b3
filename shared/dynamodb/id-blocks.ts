/** Pet ids in leased blocks (hi/lo) on item `id` 0 of the pets table (docs/architecture.md). */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCK_LIFETIME_MS } from '../pets/id-order.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';

/** Partition key of the pets-table item that holds the pet-id sequence (no pet has id 0). */
export const PET_ID_SEQUENCE_ID = 0;

/** Most ids an instance leases at once (the sequence item's write load: docs/architecture.md). */
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
 * Issues pet ids: positive safe integers, unique across instances (the atomic `ADD` alone) and
 * never reused; a block is used for at most {@link ID_BLOCK_LIFETIME_MS}, so ids are k-sorted.
 * A lease takes 1 id at first, twice the last when it was spent while fresh (at most
 * `maxBlockSize`), else as many as the last gave out.
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

  /** The blocks of `base`'s pets table (`PETS_TABLE_NAME`). @throws Error when it is unset. */
  static from(base: DynamoDBBase, options: IdBlocksOptions = {}): IdBlocks {
    return new IdBlocks(base.client, requiredSetting(base.settings, 'PETS_TABLE_NAME'), options);
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
