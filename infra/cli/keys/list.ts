/**
 * `list`: one line per key with its plan, limits (petstore-spec.md, "Limits"), ban state, status,
 * owner and creation time; never a token, hash or usage identifier.
 */
import { limitsOfKey } from '../../../shared/keys/store.ts';
import { planName } from '../../../shared/plans.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  parseStage,
  stageOption,
} from './command.ts';
import { columns, formatCount, isoTime } from './format.ts';
import { onCountersTable, onKeysTable, openTarget, type Target } from './target.ts';

/** The listing's header row. */
const HEADER = ['KEY ID', 'PLAN', 'PER MINUTE', 'PER DAY', 'BAN', 'STATUS', 'OWNER', 'CREATED'];

/** `list [--stage S]`. */
export const list: KeysSubcommand = {
  forms: ['list'],
  register: (program, dependencies) =>
    program
      .command('list')
      .description('One line per key: id, plan, limits, ban, status, owner, created.')
      .addOption(stageOption())
      .action(async (options: { stage?: string }) => {
        const target = await openTarget(parseStage(options.stage), dependencies);
        await listKeys(target, dependencies);
      }),
};

/**
 * Prints the target's keys as aligned columns under `HEADER` (counts with thousands separators,
 * times in ISO 8601), or a line saying there are none.
 *
 * @throws Error when the keys or counters table fails.
 */
async function listKeys(target: Target, { stdout }: KeysCommandDependencies): Promise<void> {
  const records = await onKeysTable(target, (keys) => keys.listKeys());
  if (records.length === 0) {
    stdout(`No keys on ${target.description}.`);
    return;
  }
  const now = Date.now();
  const bans = await onCountersTable(target, (counters) =>
    Promise.all(records.map((record) => counters.banState(record.keyId, now))),
  );
  const rows = records.map((record, index) => {
    const { perMinute, perDay } = limitsOfKey(record);
    const ban = bans[index];
    return [
      record.keyId,
      planName(record.plan),
      formatCount(perMinute),
      formatCount(perDay),
      ban ? `banned until ${isoTime(ban.bannedUntil)}` : 'not banned',
      record.revokedAt ? 'revoked' : 'active',
      record.owner ?? '-',
      record.createdAt,
    ];
  });
  for (const line of columns([HEADER, ...rows])) stdout(line);
}
