/**
 * How the keys command writes keys, plans, counts and times for an operator: one module, so that
 * every subcommand says `Pro (300 requests/minute, 10,000 requests/day)` the same way.
 */
import { type ApiKeyRecord, limitsOfKey } from '../../../shared/keys/key-records.ts';
import { planName } from '../../../shared/plans.ts';

/** A count with thousands separators, e.g. `10,000`: the spec writes its limits this way. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** A key's plan and limits, e.g. `Pro (300 requests/minute, 10,000 requests/day)`. */
export function describePlan(record: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): string {
  const { perMinute, perDay } = limitsOfKey(record);
  return `${planName(record.plan)} (${formatCount(perMinute)} requests/minute, ${formatCount(perDay)} requests/day)`;
}

/**
 * A line of the admin API's `apiGateway` answer: on a stage of several regions it starts with
 * its region (`us-west-2: disabled API Gateway API key abc`), on one region it does not.
 * @returns The region (or `undefined`), and the line without it.
 */
export function regionLine(line: string): { region?: string; text: string } {
  const prefixed = /^([a-z]{2}(?:-[a-z]+)+-\d+): (.*)$/.exec(line);
  return prefixed ? { region: prefixed[1], text: prefixed[2] ?? '' } : { text: line };
}

/** ` in <region>` for a message, or nothing without a region. */
export function inRegion(region: string | undefined): string {
  return region ? ` in ${region}` : '';
}
