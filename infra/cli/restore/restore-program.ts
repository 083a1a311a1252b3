/**
 * The restore command (docs/operations.md, "Recovering lost pets or keys"): puts back pets or
 * keys from a good copy, a table restored from point-in-time recovery or one given by name;
 * `restore.ts` is its argv entry. Every dependency is injected, for in-process tests.
 */

import { randomUUID } from 'node:crypto';
import { Option } from 'commander';
import type { AuditContext } from '../../../shared/audit/entry.ts';
import { COUNTERS_TABLE, IDEMPOTENCY_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ItemWrite } from '../../../shared/keys/admin-ports.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import { STAGES, type StageName } from '../../stages.ts';
import {
  type CommandStyle,
  type ExitCode,
  newProgram,
  runProgram,
  UsageError,
} from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import { oneOf } from '../common/text.ts';
import { planKeys } from './key-rules.ts';
import { deleteRestoredTable, parseRestoreTime, restoreToPointInTime } from './point-in-time.ts';
import {
  incomplete,
  type Report,
  type ReportedFinding,
  reportJson,
  reportLines,
} from './report.ts';
import {
  ensureApiKey,
  openRestoreTarget,
  RESTORABLE_TABLES,
  type RestorableTable,
  type RestoreCommandDependencies,
  type RestoreTarget,
} from './restore-target.ts';
import { type Item, planPets, type RestorePlan } from './rules.ts';
import { applyWrites, raiseSequence, scanTable } from './table-io.ts';

export type { RestoreCommandDependencies } from './restore-target.ts';

/** How the restore command reports errors: `restore: <message>`, a usage error with the help. */
export const RESTORE_STYLE: CommandStyle = { errorPrefix: 'restore: ' };

/** The tables a restore refuses, and why. */
const NEVER_RESTORED: Readonly<Record<string, string>> = {
  counters: `The counters table (${COUNTERS_TABLE.localName}) is never restored: rate-limit windows and bans of the past mean nothing now.`,
  idempotency: `The idempotency table (${IDEMPOTENCY_TABLE.localName}) is never restored: replays of the past mean nothing now, and its records expire within 24 hours.`,
};

/** The options as commander parses them. */
interface RawOptions {
  table: string;
  to?: string;
  fromTable?: string;
  apply?: boolean;
  overwrite?: boolean;
  keep?: boolean;
  stage?: string;
  region?: string;
  json?: boolean;
}

/** The options once checked. */
interface RestoreOptions {
  readonly table: RestorableTable;
  /** The restore point, or the good copy's table. */
  readonly source: { readonly at: Date } | { readonly tableName: string };
  readonly apply: boolean;
  readonly overwrite: boolean;
  readonly keep: boolean;
  readonly json: boolean;
}

/**
 * Runs the restore command: a dry run, or with `--apply` the writes, each conditional.
 *
 * @param args The arguments after `npm run restore --`.
 * @returns 0 when done (or nothing to do), 1 when something failed or changed under it (a run
 *   again completes it), 2 for invalid arguments.
 */
export function runRestoreCommand(
  args: readonly string[],
  dependencies: RestoreCommandDependencies,
): Promise<ExitCode> {
  let code: ExitCode = 0;
  const program = newProgram('npm run restore --', dependencies, RESTORE_STYLE)
    .description(
      'Puts back pets or keys lost or damaged in the live table from a good copy: a point-in-time restore (--to, a stage) or a table holding it (--from-table). A dry run unless --apply.',
    )
    .requiredOption(
      '--table <table>',
      'pets or keys (counters and idempotency are never restored).',
    )
    .option(
      '--to <time>',
      'Restore the live table to this ISO 8601 time (UTC or an offset) into a new table and take the good copy from it: a stage only (PITR, the last 35 days).',
    )
    .option(
      '--from-table <name>',
      'Take the good copy from this table (an earlier restore, a backup restored by hand).',
    )
    .option(
      '--apply',
      'Write (each write conditional on the live item as compared); without it nothing is written.',
    )
    .option('--overwrite', 'pets: also put back pets that differ (without it they are reported).')
    .option(
      '--keep',
      'Keep the table that --to restored (default: deleted after a run that completed).',
    )
    .addOption(
      new Option(
        '--stage <stage>',
        `${STAGES.join('|')}: a deployed stage, its tables found through the stack outputs (AWS credentials from the default chain). Without it: the local stack of \`npm start\`.`,
      ),
    )
    .option(
      '--region <region>',
      "With --stage: compare (and --to restores) that region's replica of the table; writes go through the home region only, and replication carries them. Default: the home region (your AWS region).",
    )
    .option('--json', 'Print one JSON document (findings and counts) instead of lines.')
    .action(async (raw: RawOptions) => {
      const now = (dependencies.now ?? Date.now)();
      const options = parseOptions(raw, now);
      const stage = parseStage(raw.stage);
      const target = await openRestoreTarget(stage, options.table, dependencies, raw.region);
      const home = target.regions[0];
      if (options.apply && home && target.region !== undefined && target.region !== home.region) {
        throw new Error(
          `--apply writes through the home region ${home.region} only, and replication carries the writes to the other regions: drop --region ${target.region} (without --apply it compares ${target.region}'s replica).`,
        );
      }
      const report = await restore(options, stage, target, dependencies);
      if (options.json) dependencies.stdout(reportJson(report));
      else for (const line of reportLines(report)) dependencies.stdout(line);
      if (report.applied && incomplete(report)) code = 1;
    });
  return runProgram(program, args, dependencies, RESTORE_STYLE).then((exit) =>
    exit === 0 ? code : exit,
  );
}

/**
 * The checked options.
 *
 * @throws UsageError for a table that is not restored, both or neither of `--to` and
 *   `--from-table`, `--to` on the local stack or not a valid restore point, `--overwrite` for keys,
 *   `--keep` without `--to`.
 */
function parseOptions(raw: RawOptions, nowMs: number): RestoreOptions {
  const refused = NEVER_RESTORED[raw.table];
  if (refused) throw new UsageError(refused);
  if (!(raw.table in RESTORABLE_TABLES)) {
    throw new UsageError(
      `Unknown table "${raw.table}": use ${oneOf(Object.keys(RESTORABLE_TABLES))}.`,
    );
  }
  const table = raw.table as RestorableTable;
  if ((raw.to === undefined) === (raw.fromTable === undefined)) {
    throw new UsageError('Give the good copy: --to TIME or --from-table NAME, one of them.');
  }
  if (raw.to !== undefined && raw.stage === undefined) {
    throw new UsageError(
      'DynamoDB Local has no point-in-time recovery: on the local stack give --from-table NAME.',
    );
  }
  if (raw.overwrite && table !== 'pets') {
    throw new UsageError('--overwrite is for pets only: a key is never put back wider than it is.');
  }
  if (raw.keep && raw.to === undefined) {
    throw new UsageError('--keep is for --to: the command deletes only a table it restored.');
  }
  if (raw.region !== undefined && raw.stage === undefined) {
    throw new UsageError('--region is for a deployed stage (--stage): the local stack has one.');
  }
  return {
    table,
    source:
      raw.to === undefined
        ? { tableName: raw.fromTable as string }
        : { at: parseRestoreTime(raw.to, nowMs) },
    apply: raw.apply === true,
    overwrite: raw.overwrite === true,
    keep: raw.keep === true,
    json: raw.json === true,
  };
}

/**
 * Compares the good copy with the live table and, with `--apply`, writes; deletes the table that
 * `--to` restored once a run completed, unless `--keep`.
 */
async function restore(
  options: RestoreOptions,
  stage: StageName | undefined,
  target: RestoreTarget,
  dependencies: RestoreCommandDependencies,
): Promise<Report> {
  const { table, source } = options;
  const restored = 'at' in source;
  const goodTable = restored
    ? await restoreToPointInTime(target.dynamodb, target.liveTable, source.at, dependencies.stderr)
    : source.tableName;
  const scan = async (tableName: string): Promise<Item[]> => {
    try {
      return await scanTable(target.client, tableName);
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException' && tableName === goodTable) {
        throw new Error(
          `No table ${tableName} on ${target.description} to take the good copy from.`,
        );
      }
      throw target.explain(error, tableName);
    }
  };
  const [good, live] = [await scan(goodTable), await scan(target.liveTable)];
  const plan: RestorePlan =
    table === 'pets'
      ? planPets(good, live, { overwrite: options.overwrite })
      : planKeys(good, live);
  const report: Report = {
    table,
    target: target.description,
    liveTable: target.liveTable,
    goodTable,
    applied: options.apply,
    findings: options.apply ? await write(plan, table, stage, target, dependencies) : plan.findings,
    ...(plan.sequence && { sequence: plan.sequence }),
  };
  if (restored && !options.keep && !(options.apply && incomplete(report))) {
    await deleteRestoredTable(target.dynamodb, goodTable);
    dependencies.stderr(`Deleted ${goodTable} (--keep keeps it).`);
  } else if (restored) {
    dependencies.stderr(`Kept ${goodTable}: a run again with the same --to uses it.`);
  }
  return report;
}

/**
 * Writes a plan: the id sequence first (so no id handed out meanwhile collides with a pet put
 * back), then each finding's writes, a key's through the key service with its `key.restored`
 * entry; on a stage, a key put back gets its API key again. A failed finding is reported and the
 * others go on.
 */
async function write(
  plan: RestorePlan,
  table: RestorableTable,
  stage: StageName | undefined,
  target: RestoreTarget,
  { callerArn }: RestoreCommandDependencies,
): Promise<ReportedFinding[]> {
  const partitionKey = RESTORABLE_TABLES[table].partitionKey.name;
  const { client, liveTable } = target;
  if (plan.sequence) await raiseSequence(client, liveTable, plan.sequence);
  const restoreKey = table === 'keys' ? keyRestorer(target, await callerArn(stage)) : undefined;
  const findings: ReportedFinding[] = [];
  for (const finding of plan.findings) {
    if (finding.writes.length === 0) {
      findings.push(finding);
      continue;
    }
    try {
      const { keyId, writes } = finding;
      const outcome =
        restoreKey && keyId !== undefined
          ? await restoreKey(keyId, writes)
          : await applyWrites(client, liveTable, partitionKey, writes);
      const restoredKey = outcome === 'written' ? finding.restoredKey : undefined;
      const gateway = restoredKey ? await ensureApiKeys(restoredKey, target) : [];
      const changes = [...finding.changes, ...gateway];
      findings.push({ ...finding, changes, outcome });
    } catch (error) {
      findings.push({ ...finding, outcome: 'failed', error: (error as Error).message });
    }
  }
  return findings;
}

/**
 * How the run puts a key back: through the key service on the live keys table, each key with its
 * `key.restored` entry, whose actor is the principal running the command (`callerArn`).
 */
function keyRestorer(target: RestoreTarget, callerArn: string) {
  const keys = target.keyService();
  const context: AuditContext = {
    actor: { type: 'iam', id: callerArn },
    requestId: `restore-${randomUUID()}`,
    userAgent: 'petstore restore command',
  };
  return (keyId: string, writes: readonly ItemWrite[]) => keys.restoreKey(keyId, writes, context);
}

/**
 * `ensureApiKey` in every region of the stage, home first: a phrase per region that needed one
 * (prefixed with its region when the stage has several). None on the local stack.
 * @throws Error for the first region whose API Gateway refuses (after its own undo).
 */
async function ensureApiKeys(record: ApiKeyRecord, target: RestoreTarget): Promise<string[]> {
  const phrases: string[] = [];
  for (const stack of target.regions) {
    const phrase = await ensureApiKey(stack.apiGateway, record, stack);
    if (phrase) phrases.push(target.regions.length > 1 ? `${stack.region}: ${phrase}` : phrase);
  }
  return phrases;
}
