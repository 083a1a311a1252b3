/**
 * The durations and times of the keys command's options (`--grace 24h`, `--expires-in 30d`,
 * `--expires-at 2027-01-01T00:00:00Z`, `--dormant 30d`), parsed in one place as commander option
 * parsers, so that a bad value is a usage error naming the option.
 */
import { InvalidArgumentError } from 'commander';

/** Seconds per unit of a duration. */
const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** What a duration option accepts, for help texts and messages. */
export const DURATION_FORMAT = 'a whole number and a unit s, m, h or d (30s, 15m, 24h, 30d)';

/**
 * A duration option's parser: `<N><s|m|h|d>`, or `0`, within `max` seconds.
 *
 * @param max Longest duration accepted, seconds.
 * @param maxText How `max` reads in the message, e.g. `30d`.
 * @returns A commander argument parser giving seconds; it throws InvalidArgumentError otherwise.
 */
export function durationParser(max: number, maxText: string): (text: string) => number {
  return (text) => {
    const match = /^(\d{1,9})([smhd])$/.exec(text);
    const seconds =
      text === '0' ? 0 : match ? Number(match[1]) * UNIT_SECONDS[match[2] as 's'] : Number.NaN;
    if (Number.isNaN(seconds)) throw new InvalidArgumentError(`Use ${DURATION_FORMAT}.`);
    if (seconds > max) throw new InvalidArgumentError(`At most ${maxText}.`);
    return seconds;
  };
}

/**
 * Parser of `--expires-at`: an ISO 8601 date and time with its offset (`Z` or `±hh:mm`).
 *
 * @returns The instant as ISO 8601 in UTC, e.g. `2027-01-01T00:00:00.000Z`.
 * @throws InvalidArgumentError for any other text.
 */
export function parseInstant(text: string): string {
  const epochMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
    ? Date.parse(text)
    : Number.NaN;
  if (Number.isNaN(epochMs)) {
    throw new InvalidArgumentError('Use an ISO 8601 time with its offset, e.g. 2027-01-01T00:00Z.');
  }
  return new Date(epochMs).toISOString();
}
