/**
 * The keys command (how API keys are issued: docs/api.md): a commander program with one module
 * per subcommand; `keys.ts` is its argv entry. Every dependency is injected, for in-process tests.
 */
import type { Command, Help } from 'commander';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import { STAGES } from '../../stages.ts';
import {
  type CommandStyle,
  type ExitCode,
  newProgram,
  runProgram,
  UsageError,
} from '../common/program.ts';
import { oneOf } from '../common/text.ts';
import { audit, history } from './audit.ts';
import { check } from './check.ts';
import { type KeysCommandDependencies, type KeysSubcommand, STAGE_DESCRIPTION } from './command.ts';
import { create } from './create.ts';
import { DURATION_FORMAT } from './duration.ts';
import { setExpiry } from './expiry.ts';
import { list } from './list.ts';
import { LIMIT_OPTIONS } from './plan-options.ts';
import { revoke } from './revoke.ts';
import { roll } from './roll.ts';
import { setScope } from './scope.ts';
import { setPlan } from './set-plan.ts';
import { unban } from './unban.ts';
import { usage } from './usage.ts';

export type { KeysCommandDependencies } from './command.ts';

/** The subcommands, in the order the help lists them. */
const SUBCOMMANDS: readonly KeysSubcommand[] = [
  create,
  list,
  roll,
  setExpiry,
  setPlan,
  setScope,
  revoke,
  unban,
  usage,
  history,
  audit,
  check,
];

/** How the keys command reports errors: `keys: <message>`, a usage error followed by the help. */
export const KEYS_STYLE: CommandStyle = { errorPrefix: 'keys: ' };

/**
 * Runs the keys command.
 *
 * Every subcommand but `check` is a signed request to the target's admin API. Output: `create`
 * and `roll` print a summary and, as the LAST LINE OF STDOUT, the bearer token; `list` prints one
 * line per key (never a token or hash); `set-plan`, `set-scope`, `revoke` and `unban` print what
 * they did; `history` and `audit` print audit entries (or JSON with `--json`). An error goes to
 * stderr as one line, `keys: <message>`; a usage error (commander's, or a plan, limits, scope,
 * owner or stage the subcommand refuses) is followed by the help.
 *
 * @param args The arguments after `npm run keys --`.
 * @returns 0 when done (or the help was asked for), 1 when the operation failed (unknown key id,
 *   the admin API refusing, failing or not answering), 2 for a usage error.
 */
export function runKeysCommand(
  args: readonly string[],
  dependencies: KeysCommandDependencies,
): Promise<ExitCode> {
  return runProgram(keysProgram(dependencies), args, dependencies, KEYS_STYLE);
}

/** The commander program of the keys command, its output sent to the dependencies' writers. */
export function keysProgram(dependencies: KeysCommandDependencies): Command {
  // Settings made before the subcommands are added are inherited by them.
  const program = newProgram('npm run keys --', dependencies, KEYS_STYLE)
    .usage('<command> [options]')
    .description(
      'Issues, lists, rolls, expires, moves, scopes, unbans and revokes Petstore API keys through the admin API, shows their usage and audit trail, checks tokens.',
    )
    .helpCommand('help [command]', 'Show the help of a command.');
  for (const subcommand of SUBCOMMANDS) {
    subcommand
      .register(program, dependencies)
      .addHelpText('after', ({ command }) =>
        ['', ...formsSection(command.createHelp(), subcommand.forms)].join('\n').trimEnd(),
      );
  }
  // Commander hands the program's own action whatever names no subcommand.
  return program
    .argument('[command]')
    .action((name: string | undefined) => {
      const names = oneOf(program.commands.map((command) => command.name()));
      throw new UsageError(
        name === undefined
          ? `Give a command: ${names}.`
          : `Unknown command "${name}": use ${names}.`,
      );
    })
    .addHelpText('after', ({ command }) => overview(command.createHelp()));
}

/** A subcommand's forms as a section of help: a heading, one line each, a blank line. */
function formsSection(help: Help, forms: readonly string[]): string[] {
  const items = forms.map((form) => help.formatItem(form, 0, '', help));
  return help.formatItemList('Forms:', items, help);
}

/**
 * The end of the program's help: every subcommand's forms, the options that matter across them,
 * when a change reaches requests, and the local stack's environment.
 */
function overview(help: Help): string {
  const options = [
    [`${LIMIT_OPTIONS.perMinute.flag} N`, LIMIT_OPTIONS.perMinute.description],
    [`${LIMIT_OPTIONS.perDay.flag} N`, LIMIT_OPTIONS.perDay.description],
    [`--stage ${STAGES.join('|')}`, STAGE_DESCRIPTION],
    ['DURATION', `${DURATION_FORMAT[0]?.toUpperCase()}${DURATION_FORMAT.slice(1)}.`],
  ] as const;
  const termWidth = Math.max(...options.map(([term]) => term.length));
  return [
    '',
    ...formsSection(
      help,
      SUBCOMMANDS.flatMap(({ forms }) => forms),
    ),
    ...help.formatItemList(
      'Options of the commands (`npm run keys -- <command> --help` lists them all):',
      options.map(([term, description]) => help.formatItem(term, termWidth, description, help)),
      help,
    ),
    `A plan change, a scope change, an expiry, the end of a roll's grace or a revocation reaches
requests when the authorizer's cached result for the token expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.

Environment (local stack): ADMIN_PORT (default 3100) is the local admin API's port on 127.0.0.1;
PETSTORE_DIR (default .petstore) holds the stack's credentials, which sign the requests.`,
  ].join('\n');
}
