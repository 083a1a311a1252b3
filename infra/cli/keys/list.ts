/**
 * `list`: one line per key with its plan, limits (docs/rate-limits.md), scopes, ban state, status
 * (with its old token's grace), expiry, last day used, owner and creation time; never a
 * token, hash or usage identifier. `--dormant D` keeps the keys unused for D.
 */
import { Option } from 'commander';
import { lastUsedDay } from '../../../shared/dynamodb/usage.ts';
import { keyRefusal, type ListedKey, limitsOfKey } from '../../../shared/keys/key-records.ts';
import { ENTERPRISE_PLAN, planName } from '../../../shared/plans.ts';
import { RETENTION_DAYS } from '../../../shared/rate-limit/counter-item.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  parseStage,
  stageOption,
} from './command.ts';
import { durationParser } from './duration.ts';
import { columns, formatCount, isoTime } from './format.ts';
import { describeScopes } from './scope.ts';
import { onCountersTable, onKeysTable, openTarget, type Target } from './target.ts';

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

/** `list [--dormant DURATION] [--stage S]`. */
export const list: KeysSubcommand = {
  forms: ['list [--dormant DURATION]'],
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
      .addOption(stageOption())
      .action(async (options: { dormant?: number; stage?: string }) => {
        const target = await openTarget(parseStage(options.stage), dependencies);
        await listKeys(target, options.dormant, dependencies);
      }),
};

/**
 * Prints the target's keys as aligned columns under `HEADER` (counts with thousands separators,
 * times in ISO 8601), or a line saying there are none.
 *
 * @param dormantSeconds Only keys created more than this long ago whose last day used ended
 *   more than this long ago; @default - every key
 * @throws Error when the keys or counters table fails.
 */
async function listKeys(
  target: Target,
  dormantSeconds: number | undefined,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const now = Date.now();
  const all = await onKeysTable(target, (keys) => keys.listKeys());
  if (all.length === 0) {
    stdout(`No keys on ${target.description}.`);
    return;
  }
  const { bans, usage } = await onCountersTable(target, async (counters) => ({
    bans: await Promise.all(all.map((record) => counters.bans.banState(record.keyId, now))),
    usage: await counters.usage.dailyUsage(
      all.map((record) => record.keyId),
      RETENTION_DAYS,
      now,
      new Set(all.flatMap((record) => (record.plan === ENTERPRISE_PLAN.id ? [record.keyId] : []))),
    ),
  }));
  const lastUsed = all.map((record) => lastUsedDay(usage.get(record.keyId) ?? []));
  const shown = all.flatMap((record, index) =>
    dormantSeconds === undefined || isDormant(record, lastUsed[index], dormantSeconds, now)
      ? [index]
      : [],
  );
  if (shown.length === 0) {
    stdout(`No dormant keys on ${target.description}.`);
    return;
  }
  const rows = shown.map((index) => {
    const record = all[index] as ListedKey;
    const { perMinute, perDay } = limitsOfKey(record);
    const ban = bans[index];
    return [
      record.keyId,
      planName(record.plan),
      formatCount(perMinute),
      formatCount(perDay),
      describeScopes(record.scopes),
      ban ? `banned until ${isoTime(ban.bannedUntil)}` : 'not banned',
      status(record, now),
      record.expiresAt ?? 'never',
      lastUsed[index] ?? NOT_USED,
      record.owner ?? '-',
      record.createdAt,
    ];
  });
  for (const line of columns([HEADER, ...rows])) stdout(line);
}

/**
 * Whether a key was created before `now - seconds` and has no request since: its last day used
 * (UTC) ended before then, or it has none in the days kept.
 */
function isDormant(
  record: ListedKey,
  lastUsed: string | undefined,
  seconds: number,
  nowMs: number,
): boolean {
  const since = nowMs - seconds * 1000;
  const lastUseEnd = lastUsed === undefined ? 0 : Date.parse(`${lastUsed}T00:00:00Z`) + 86_400_000;
  return Date.parse(record.createdAt) < since && lastUseEnd <= since;
}

/** `active`, `revoked`, `expired`, or `active, old token until <time>` during a roll's grace. */
function status(record: ListedKey, nowMs: number): string {
  const refusal = keyRefusal(record, nowMs);
  if (refusal) return refusal;
  const grace = record.oldTokenUntil && Date.parse(record.oldTokenUntil) > nowMs;
  return grace ? `active, old token until ${record.oldTokenUntil}` : 'active';
}
