/**
 * `list`: one line per key with its plan, limits (docs/rate-limits.md), scopes, ban state, status
 * (with its old token's grace), expiry, last day used, owner and creation time, from the admin
 * API's listKeys, every page of it; never a token, hash or usage identifier. `--dormant D` keeps
 * the keys unused for D; `--owner O` lists O's keys alone, oldest first.
 */
import { Option } from 'commander';
import { keyRefusal, limitsOfKey } from '../../../shared/keys/key-records.ts';
import { planName } from '../../../shared/plans.ts';
import { RETENTION_DAYS } from '../../../shared/rate-limit/counter-item.ts';
import type { AdminSchemas } from '../admin-api-client.ts';
import { parseStage } from '../common/stage.ts';
import { columns } from '../common/text.ts';
import { type KeysCommandDependencies, type KeysSubcommand, stageOption } from './command.ts';
import { durationParser } from './duration.ts';
import { formatCount } from './format.ts';
import { describeScopes } from './scope.ts';
import { dataOf, everyPage, openTarget, type Target } from './target.ts';

/** The listing's header row. */
const HEADER = [
  'KEY ID',
  'PLAN',
  'PER MINUTE',
  'PER DAY',
  'SCOPES',
  'BAN',
  'STATUS',
  'EXPIRES',
  'LAST USED',
  'OWNER',
  'CREATED',
];

/** What LAST USED shows for a key with no request in the days the counters table keeps. */
export const NOT_USED = `not in ${RETENTION_DAYS} days`;

/** Keys a page of the admin API's listKeys holds: its most. */
const PAGE_SIZE = 100;

/** `list [--dormant DURATION] [--owner OWNER] [--stage S]`. */
export const list: KeysSubcommand = {
  forms: ['list [--dormant DURATION] [--owner OWNER]'],
  register: (program, dependencies) =>
    program
      .command('list')
      .description(
        'One line per key: id, plan, limits, scopes, ban, status, expiry, last day used (UTC), owner, created.',
      )
      .addOption(
        new Option(
          '--dormant <duration>',
          `Only keys created before and unused for this long (days are UTC days), at most ${RETENTION_DAYS}d, e.g. 30d.`,
        ).argParser(durationParser(RETENTION_DAYS * 86_400, `${RETENTION_DAYS}d`)),
      )
      .addOption(
        new Option(
          '--owner <owner>',
          "Only this owner's keys, oldest first (a portal account's: cognito:<sub>).",
        ),
      )
      .addOption(stageOption())
      .action(async (options: { dormant?: number; owner?: string; stage?: string }) => {
        const target = await openTarget(parseStage(options.stage), dependencies);
        await listKeys(target, options, dependencies);
      }),
};

/**
 * Prints the target's keys as aligned columns under `HEADER` (counts with thousands separators,
 * times in ISO 8601), or a line saying there are none.
 *
 * @param options.dormant Only keys created more than this many seconds ago whose last day used
 *   ended more than this long ago; @default - every key
 * @param options.owner Only this owner's keys. @default - every owner's
 * @throws Error when the admin API fails or cannot be reached.
 */
async function listKeys(
  target: Target,
  { dormant: dormantSeconds, owner }: { dormant?: number; owner?: string },
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const now = Date.now();
  const all = await everyPage({ limit: PAGE_SIZE, owner }, async (query) => {
    const answer = await target.admin.GET('/keys', { params: { query } });
    return { items: (await dataOf(Promise.resolve(answer))).keys, response: answer.response };
  });
  if (all.length === 0) {
    stdout(`No keys${owner === undefined ? '' : ` of ${owner}`} on ${target.description}.`);
    return;
  }
  // Every page read: the keys oldest first, as an owner's come and as the listing always showed.
  all.sort((a, b) => a.key.createdAt.localeCompare(b.key.createdAt));
  const shown = all.filter(
    ({ key, lastUsed }) =>
      dormantSeconds === undefined || isDormant(key, lastUsed, dormantSeconds, now),
  );
  if (shown.length === 0) {
    stdout(`No dormant keys on ${target.description}.`);
    return;
  }
  const rows = shown.map(({ key, bannedUntil, lastUsed }) => {
    const { perMinute, perDay } = limitsOfKey(key);
    return [
      key.keyId,
      planName(key.plan),
      formatCount(perMinute),
      formatCount(perDay),
      describeScopes(key.scopes),
      bannedUntil ? `banned until ${bannedUntil}` : 'not banned',
      status(key, now),
      key.expiresAt ?? 'never',
      lastUsed ?? NOT_USED,
      key.owner ?? '-',
      key.createdAt,
    ];
  });
  for (const line of columns([HEADER, ...rows])) stdout(line);
}

/**
 * Whether a key was created before `now - seconds` and has no request since: its last day used
 * (UTC) ended before then, or it has none in the days kept.
 */
function isDormant(
  record: AdminSchemas['Key'],
  lastUsed: string | undefined,
  seconds: number,
  nowMs: number,
): boolean {
  const since = nowMs - seconds * 1000;
  const lastUseEnd = lastUsed === undefined ? 0 : Date.parse(`${lastUsed}T00:00:00Z`) + 86_400_000;
  return Date.parse(record.createdAt) < since && lastUseEnd <= since;
}

/** `active`, `revoked`, `expired`, or `active, old token until <time>` during a roll's grace. */
function status(record: AdminSchemas['Key'], nowMs: number): string {
  const refusal = keyRefusal(record, nowMs);
  if (refusal) return refusal;
  const grace = record.oldTokenUntil && Date.parse(record.oldTokenUntil) > nowMs;
  return grace ? `active, old token until ${record.oldTokenUntil}` : 'active';
}
