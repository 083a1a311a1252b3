/** GitHub's secret scanning public keys, `{"public_keys":[{key_identifier, key, is_current}]}`. */
import * as v from 'valibot';
import { PublicKeysUnavailableError } from './secret-scanning-errors.ts';

/** Least time between two reads of the list for an identifier it lacked, ms. */
export const REFETCH_INTERVAL_MS = 60_000;

const FETCH_TIMEOUT_MS = 5_000;

const PublicKeyListSchema = v.object({
  public_keys: v.array(v.object({ key_identifier: v.string(), key: v.string() })),
});

/**
 * The keys by identifier (PEM): the list read once per container and kept; an identifier it lacks
 * reads it again at most once a minute.
 */
export class GitHubPublicKeys {
  private list?: Promise<ReadonlyMap<string, string>>;
  private readAt = Number.NEGATIVE_INFINITY;

  /** @param read Reads the list's JSON. @param now Epoch ms. @default Date.now */
  constructor(
    private readonly read: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The list at `url`, read with `fetch` (at most 5 s a read). */
  static from(url: string, now?: () => number): GitHubPublicKeys {
    return new GitHubPublicKeys(async () => {
      const response = await fetch(url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return response.json();
    }, now);
  }

  /**
   * The PEM key that `identifier` names, or `undefined` when the list lacks it.
   * @throws PublicKeysUnavailableError when the list cannot be read (a failed read is not kept).
   */
  async keyFor(identifier: string): Promise<string | undefined> {
    const cached = await (this.list ?? this.readList());
    if (cached.has(identifier)) return cached.get(identifier);
    const fresh = this.now() - this.readAt < REFETCH_INTERVAL_MS;
    // The list as read last (by this call, or another meanwhile), or read again now.
    return (await (fresh ? (this.list ?? this.readList()) : this.readList())).get(identifier);
  }

  private readList(): Promise<ReadonlyMap<string, string>> {
    this.readAt = this.now();
    const reading = this.read().then((json) => {
      const { public_keys } = v.parse(PublicKeyListSchema, json);
      return new Map(public_keys.map((each) => [each.key_identifier, each.key]));
    });
    const list = reading.catch((error: unknown) => {
      if (this.list === list) this.list = undefined;
      throw new PublicKeysUnavailableError(
        "GitHub's secret scanning public keys could not be read.",
        {
          cause: error,
        },
      );
    });
    this.list = list;
    return list;
  }
}
