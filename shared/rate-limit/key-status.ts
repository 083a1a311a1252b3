/** What an operator sees of a key's counters in every region: its ban, its requests per UTC day. */
import { type Regions, regionalName } from '../regions.ts';

export interface BanState {
  /** Epoch seconds. */
  readonly bannedUntil: number;
}

/** One key's requests on one UTC day. */
export interface DayUsage {
  readonly day: string;
  readonly admitted: number;
  /** Refused with 429 over a limit (during a ban: not counted). */
  readonly refused: number;
}

/** The last day of `usage` (newest first) with any request, or `undefined`. */
export function lastUsedDay(usage: readonly DayUsage[]): string | undefined {
  return usage.find(({ admitted, refused }) => admitted + refused > 0)?.day;
}

/** The keys of the counter item `name` in every region, the home region's first. */
export function everyName(name: string, regions: Regions): string[] {
  return regions.names.map((_, at) => regionalName(name, regions, at));
}
