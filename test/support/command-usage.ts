/**
 * A command's usage tested by what it makes possible, not by a copy of its text: the commander
 * program a command parses with (caught as it runs), the options and subcommands that definition
 * holds, and the long flags a help text names.
 */
import { Command, CommanderError } from 'commander';
import { vi } from 'vitest';

/**
 * Runs `run` (a command run in-process) and returns the commander program it parsed its
 * arguments with: the receiver of the run's first `parseAsync`.
 *
 * @throws When the run parsed nothing with commander.
 */
export async function programOf(run: () => Promise<unknown>): Promise<Command> {
  const parse = vi.spyOn(Command.prototype, 'parseAsync');
  try {
    await run();
    const program = parse.mock.contexts[0];
    if (!program) throw new Error('the run parsed no arguments with commander');
    return program as Command;
  } finally {
    parse.mockRestore();
  }
}

/** A command of a program and the subcommand names that reach it (`[]` for the program). */
export interface CommandAt {
  readonly path: readonly string[];
  readonly command: Command;
}

/** `program` and each of its subcommands, depth first (commander's own `help` left out). */
export function commandsOf(program: Command, path: readonly string[] = []): CommandAt[] {
  return [
    { path, command: program },
    ...program.commands
      .filter((command) => command.name() !== 'help')
      .flatMap((command) => commandsOf(command, [...path, command.name()])),
  ];
}

/**
 * A command's options as its definition holds them and its help's option list shows them
 * (`--plan <plan>`, `--never`, …).
 */
export function optionFlags(command: Command): string[] {
  return command.options.map((option) => option.flags);
}

/** The long flags a text names (`--plan`, `--per-minute`, …), each once, `--help` left out. */
export function flagsNamed(text: string): string[] {
  return [...new Set(text.match(/(?<![\w-])--[a-z][a-z-]*[a-z]/g) ?? [])].filter(
    (flag) => flag !== '--help',
  );
}

/**
 * Whether `command` takes `flag` as one of its options: commander's own parse of `[flag, value]`
 * on it leaves nothing unknown (a refused value, such as one outside the option's choices, still
 * means the option exists).
 */
export function accepts(command: Command, flag: string): boolean {
  try {
    return !command.parseOptions([flag, 'value']).unknown.includes(flag);
  } catch (error) {
    if (error instanceof CommanderError) return error.code !== 'commander.unknownOption';
    return true;
  }
}

/** The commands of `program` (itself or a subcommand) that take `flag`, as their paths. */
export function takersOf(program: Command, flag: string): string[] {
  return commandsOf(program)
    .filter(({ command }) => accepts(command, flag))
    .map(({ path }) => path.join(' '));
}

/**
 * The arguments that satisfy a command's mandatory options (commander checks them before it
 * looks for unknown ones): each mandatory option's long flag and its value in `values`, else its
 * first choice, else `value`.
 */
export function mandatoryArguments(
  command: Command,
  values: Readonly<Record<string, string>> = {},
): string[] {
  return command.options
    .filter((option) => option.mandatory && option.long)
    .flatMap(({ long, argChoices }) => [
      long as string,
      values[long as string] ?? argChoices?.[0] ?? 'value',
    ]);
}

/**
 * Whether a help text lists an option in its options list, as commander writes each entry: on a
 * line of its own, indented, `flags` (`--plan <plan>`, `-h, --help`) followed by a space or the
 * line's end.
 */
export function listsOption(help: string, flags: string): boolean {
  const escaped = flags.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^ +${escaped}( |$)`, 'm').test(help);
}
