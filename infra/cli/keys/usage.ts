/**
 * `usage`: a key's requests admitted and refused (429) per UTC day, and the last day it was used,
 * from the admin API's getKeyUsage (the rate limiter's day items, shared/dynamodb/key-usage.ts);
 * nothing is written for it.
 */
import { Option } from 'commander';
import { RETENTION_DAYS } from '../../../shared/rate-limit/counter-item.ts';
import { UsageError } from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import { columns } from '../common/text.ts';
import { type KeysCommandDependencies, type KeysSubcommand, keyIdCommand } from './command.ts';
import { formatCount } from './format.ts';
import { NOT_USED } from './list.ts';
import { dataOf, openTarget, type Target } from './target.ts';

/** Days `usage` shows without `--days`. */
const DEFAULT_DAYS = 7;

/** `usage <key-id> [--days N] [--stage S]`. */
export const usage: KeysSubcommand = {
  forms: ['usage <key-id> [--days N]'],
  register: (program, dependencies) =>
    keyIdCommand(
      program,
      'usage',
      "A key's requests admitted and refused per UTC day, and its last day used.",
    )
      .addOption(
        new Option(
          '--days <N>',
          `UTC days to show, today first: 1 to ${RETENTION_DAYS} (default: ${DEFAULT_DAYS}).`,
        ),
      )
      .action(async (keyId: string, options: { days?: string; stage?: string }) => {
        const days = parseDays(options.days);
        const target = await openTarget(parseStage(options.stage), dependencies);
        await printUsage(keyId, days, target, dependencies);
      }),
};

/**
 * The `--days` option as a number.
 *
 * @throws UsageError for anything but a whole number from 1 to `RETENTION_DAYS`.
 */
function parseDays(text: string | undefined): number {
  if (text === undefined) return DEFAULT_DAYS;
  const days = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 1 && days <= RETENTION_DAYS)) {
    throw new UsageError(
      `--days must be a whole number from 1 to ${RETENTION_DAYS} (the days the counters are kept).`,
    );
  }
  return days;
}

/**
 * Prints one row per day, newest first, and the last day used within the days kept.
 *
 * @throws Error for an unknown key id or an admin API that fails or cannot be reached.
 */
async function printUsage(
  keyId: string,
  days: number,
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const usage = await dataOf(
    target.admin.GET('/keys/{keyId}/usage', { params: { path: { keyId }, query: { days } } }),
  );
  stdout(`Requests of key ${keyId} on ${target.description}, per UTC day:`);
  const rows = usage.days.map(({ day, admitted, refused }) => [
    day,
    formatCount(admitted),
    formatCount(refused),
  ]);
  for (const line of columns([['DAY', 'ADMITTED', 'REFUSED (429)'], ...rows])) stdout(line);
  stdout(`Last used: ${usage.lastUsed ?? NOT_USED}`);
  stdout('Requests refused while the key was banned are not counted.');
}
