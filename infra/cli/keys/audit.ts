/**
 * Reading the audit trail (docs/operations.md, "The audit trail"): `history <key-id>`, a key's
 * entries oldest first (the admin API's getKeyHistory), and `audit --since TIME`, the stage's
 * entries in a window (listAuditEntries); both as aligned columns, or the entries as JSON with
 * `--json`. Nothing is written.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { AUDIT_EVENTS, type AuditEvent } from '../../../shared/audit/entry.ts';
import type { AdminSchemas } from '../admin-api-client.ts';
import { parseStage } from '../common/stage.ts';
import { columns } from '../common/text.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  stageOption,
} from './command.ts';
import { DURATION_FORMAT, durationParser, parseInstant } from './duration.ts';
import { dataOf, everyPage, openTarget, type Target } from './target.ts';

/** The columns of a listing of entries. */
const HEADER = ['TIME', 'EVENT', 'KEY ID', 'ACTOR', 'CHANGES', 'REASON'];

/** Longest window start given as a duration: ten years (the longest retention). */
const MAX_SINCE_SECONDS = 3_660 * 86_400;

/** `--json`: print the entries as the admin API gives them. */
function jsonOption(): Option {
  return new Option('--json', 'Print the entries as a JSON array, as the admin API gives them.');
}

/** `history <key-id> [--json] [--stage S]`. */
export const history: KeysSubcommand = {
  forms: ['history <key-id> [--json]'],
  register: (program, dependencies) =>
    keyIdCommand(
      program,
      'history',
      "A key's audit entries (who changed what, when), oldest first.",
    )
      .addOption(jsonOption())
      .action(async (keyId: string, options: { json?: boolean; stage?: string }) => {
        const target = await openTarget(parseStage(options.stage), dependencies);
        const { entries } = await dataOf(
          target.admin.GET('/keys/{keyId}/history', { params: { path: { keyId } } }),
        );
        printEntries(
          entries,
          options.json,
          `of key ${keyId} on ${target.description}`,
          dependencies,
        );
      }),
};

/** `audit --since TIME|DURATION [--until TIME] [--actor ID] [--event EVENT] [--json] [--stage S]`. */
export const audit: KeysSubcommand = {
  forms: ['audit --since TIME|DURATION [--until TIME] [--actor ID] [--event EVENT] [--json]'],
  register: (program, dependencies) =>
    addWindowOptions(
      program
        .command('audit')
        .description("The stage's audit entries in a window, oldest first, of every key."),
    )
      .addOption(jsonOption())
      .addOption(stageOption())
      .action(async (options: WindowOptions & { json?: boolean; stage?: string }) => {
        const target = await openTarget(parseStage(options.stage), dependencies);
        const entries = await auditWindow(target, options);
        const filters = [
          options.actor && `by ${options.actor}`,
          options.event && `of event ${options.event}`,
        ].filter(Boolean);
        printEntries(
          entries,
          options.json,
          `on ${target.description} since ${options.since}${filters.map((text) => ` ${text}`).join('')}`,
          dependencies,
        );
      }),
};

/** The window options as commander parses them. */
interface WindowOptions {
  /** ISO 8601 in UTC: a time given, or a duration before now. */
  readonly since: string;
  readonly until?: string;
  readonly actor?: string;
  readonly event?: AuditEvent;
}

/** Adds `--since` (required), `--until`, `--actor` and `--event` to a subcommand. */
function addWindowOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--since <time>',
        `Start of the window: an ISO 8601 time, or how long ago (${DURATION_FORMAT}).`,
      )
        .argParser(parseSince)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--until <time>', 'End of the window, an ISO 8601 time (default: now).').argParser(
        parseInstant,
      ),
    )
    .addOption(
      new Option(
        '--actor <id>',
        'Only the changes of the actor with this id: an IAM principal ARN, or a system such as local:npm-start.',
      ),
    )
    .addOption(new Option('--event <event>', 'Only entries of this event.').choices(AUDIT_EVENTS));
}

/**
 * `--since`: an ISO 8601 time, or a duration before now.
 * @throws InvalidArgumentError naming both forms for anything else.
 */
function parseSince(text: string): string {
  if (/^\d{4}-/.test(text)) return parseInstant(text);
  try {
    const seconds = durationParser(MAX_SINCE_SECONDS, '3660d')(text);
    return new Date(Date.now() - seconds * 1000).toISOString();
  } catch (error) {
    throw new InvalidArgumentError(
      `Use an ISO 8601 time with its offset, e.g. 2027-01-01T00:00Z, or ${DURATION_FORMAT}: ${(error as Error).message}`,
    );
  }
}

/** The stage's entries in the window, from listAuditEntries, every page of it (100 a page). */
async function auditWindow(
  target: Target,
  { since, until, actor, event }: WindowOptions,
): Promise<AdminSchemas['AuditEntry'][]> {
  return everyPage({ since, until, actor, event, limit: 100 }, async (query) => {
    const answer = await target.admin.GET('/audit', { params: { query } });
    return { items: (await dataOf(Promise.resolve(answer))).entries, response: answer.response };
  });
}

/**
 * Prints entries: as JSON with `json`, else one line each under `HEADER` (or a line saying there
 * are none), each change as `field: before -> after`.
 *
 * @param what Whose entries, for the heading, e.g. `of key key_… on the local stack (…)`.
 */
function printEntries(
  entries: readonly AdminSchemas['AuditEntry'][],
  json: boolean | undefined,
  what: string,
  { stdout }: KeysCommandDependencies,
): void {
  if (json) {
    stdout(JSON.stringify(entries, null, 2));
    return;
  }
  if (entries.length === 0) {
    stdout(`No audit entries ${what}.`);
    return;
  }
  stdout(`Audit entries ${what}, oldest first:`);
  const rows = entries.map((entry) => [
    entry.at,
    entry.event,
    entry.keyId,
    actorText(entry.actor),
    describeChanges(entry.changes),
    entry.reason ?? '-',
  ]);
  for (const line of columns([HEADER, ...rows])) stdout(line);
}

/**
 * An actor as a person reads it: its id (an IAM principal's ARN, `local:npm-start`), then its
 * name when it has one, e.g. `cognito:1f2e… (ann@example.com)` for an account.
 */
function actorText({ id, name }: AdminSchemas['Actor']): string {
  return name === undefined ? id : `${id} (${name})`;
}

/** `plan: free -> pro, perMinute: - -> 1000`: each changed field, `-` for a value not set. */
function describeChanges(changes: AdminSchemas['AuditEntry']['changes']): string {
  const shown = (value: unknown) =>
    value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value);
  return (
    Object.entries(changes)
      .map(([field, { before, after }]) => `${field}: ${shown(before)} -> ${shown(after)}`)
      .join(', ') || '-'
  );
}
