/**
 * What an operator sees of a key's counters in every region: its ban in force and its requests per
 * UTC day (read by the counters table's adapters for the keys command and the admin API).
 */
import { type Regions, regionalName } from '../regions.ts';

export interface BanState {
  /** Epoch seconds at which the ban ends. */
  readonly bannedUntil: number;
}

/** One key's requests on one UTC day. */
export interface DayUsage {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  /** Requests admitted. */
  readonly admitted: number;
  /** Requests refused with 429 over a limit (those refused during a ban are not counted). */
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
