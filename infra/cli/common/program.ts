/**
 * What every command (`keys`, `rollback`, `smoke`, `deploy`, `npm start`) shares: a commander
 * program in one style, its exit status (0 done, 1 failed, 2 usage error) and the entry idiom.
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';

/** Exit status of a command: 0 done (or help shown), 1 failed, 2 usage error. */
export type ExitCode = 0 | 1 | 2;

/** Where a command writes; each call is text without its final line break. */
export interface CommandOutput {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

/** How a command reports errors. */
export interface CommandStyle {
  /** What each error line starts with, e.g. `keys: `. */
  readonly errorPrefix: string;
  /**
   * On a usage error, print only `usage: <name> <usage>` instead of the message and the help.
   * @default false
   */
  readonly briefUsage?: boolean;
}

/** A command line the command does not accept: exit status 2, reported as commander's are. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A commander program with `-h, --help`, its output sent to `output` and its exits thrown
 * (exitOverride) for {@link runProgram}. Subcommands added later inherit these settings.
 *
 * @param name The command as typed, e.g. `npm run keys --`.
 */
export function newProgram(name: string, output: CommandOutput, style: CommandStyle): Command {
  return new Command(name)
    .helpOption('-h, --help', 'Show this help.')
    .configureOutput({
      writeOut: (text) => output.stdout(text.replace(/\n$/, '')),
      writeErr: (text) => output.stderr(text.replace(/\n$/, '')),
      outputError: (message, write) => {
        if (!style.briefUsage) write(`${style.errorPrefix}${message}`);
      },
    })
    .exitOverride();
}

/**
 * Runs a program of {@link newProgram} on `args`. An error its action throws is one line on
 * stderr, `<prefix><message>`; a usage error (commander's or a {@link UsageError}) is followed by
 * the help, or replaced by the one-line usage in the brief style.
 *
 * @returns 0 when done or the help was asked for, 1 when the action threw, 2 for a usage error.
 */
export async function runProgram(
  program: Command,
  args: readonly string[],
  output: CommandOutput,
  style: CommandStyle,
): Promise<ExitCode> {
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 0;
    if (!(error instanceof CommanderError || error instanceof UsageError)) {
      return failed(error, output, style);
    }
    if (style.briefUsage) {
      output.stderr(`usage: ${program.name()} ${program.usage()}`);
      return 2;
    }
    // Commander has written its own message already.
    if (error instanceof UsageError) output.stderr(`${style.errorPrefix}${error.message}`);
    output.stderr('');
    program.outputHelp({ error: true });
    return 2;
  }
}

/** The process's standard output and error, a line break after each write. */
const PROCESS_OUTPUT: CommandOutput = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/**
 * The entry idiom of every command: when `moduleUrl` is the file node runs, calls `command` with
 * the process's arguments and output and sets `process.exitCode` to what it returns; an error it
 * throws (e.g. an invalid setting, before any program runs) is one line on stderr and exit 1.
 *
 * @param moduleUrl The entry module's `import.meta.url`.
 */
export async function runMain(
  moduleUrl: string,
  style: CommandStyle,
  command: (args: readonly string[], output: CommandOutput) => Promise<ExitCode>,
): Promise<void> {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  try {
    process.exitCode = await command(process.argv.slice(2), PROCESS_OUTPUT);
  } catch (error) {
    process.exitCode = failed(error, PROCESS_OUTPUT, style);
  }
}

/** Writes `<prefix><message>` to stderr. @returns 1 */
function failed(error: unknown, output: CommandOutput, style: CommandStyle): 1 {
  output.stderr(`${style.errorPrefix}${(error as Error).message}`);
  return 1;
}
