/**
 * What every subcommand of the keys command shares: its dependencies, the shape of a subcommand
 * module, the `--stage` option that picks the target and the `--reason` of every change.
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { type Command, Option } from 'commander';
import { MAX_REASON_LENGTH } from '../../../shared/keys/admin-schemas.ts';
import { STAGES } from '../../stages.ts';
import type { CommandOutput } from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import { openTarget, type Target, type TargetDependencies } from './target.ts';

/**
 * What the command needs from the outside world, injected so that tests run it in-process: where
 * the admin APIs are and who signs for the operator, and the output.
 */
export interface KeysCommandDependencies extends TargetDependencies, CommandOutput {
  /**
   * API Gateway in a region of a deployed stage, for `check <key-id>`.
   * @default - a client of that region with `stageCredentials`
   */
  readonly apiGatewayIn?: (region: string) => APIGatewayClient;
}

/** What `--region` does for the commands that read a stage's regions. */
export const REGION_DESCRIPTION =
  "One region of the stage (with --stage). Default: every region of the stage, home first (the home stack's output Regions); the home region is your AWS region's.";

/** The `--region <region>` option of the commands that read each region of a stage. */
export function regionOption(): Option {
  return new Option('--region <region>', REGION_DESCRIPTION);
}

/** One subcommand of the keys command (`create`, `list`, …): a module each. */
export interface KeysSubcommand {
  /**
   * The command lines it accepts, after `npm run keys --` and without `--stage`, e.g.
   * `unban <key-id>`: the overview that `--help` prints, where one line of commander's cannot
   * say which options go together.
   */
  readonly forms: readonly string[];
  /**
   * Adds the subcommand, its arguments, options and action, to the program.
   *
   * The action checks what commander cannot (plans, limits, owner, stage) before it changes
   * anything, throwing `UsageError`; a failed operation throws an `Error` whose message is meant
   * for the operator.
   *
   * @returns The subcommand.
   */
  readonly register: (program: Command, dependencies: KeysCommandDependencies) => Command;
}

/** What `--stage` does, for the subcommands' help and the overview in `--help`. */
export const STAGE_DESCRIPTION =
  "Work on a deployed stage: its admin API, found through the stack outputs, signed with your AWS credentials and region from the default chain (your role needs execute-api:Invoke on it). There an Enterprise key gets a usage plan of its own. Without it: the local stack of `npm start`, signed with the stack's own credentials.";

/** The `--reason <text>` option of every subcommand that changes a key: kept in its audit entry. */
export function reasonOption(): Option {
  return new Option(
    '--reason <text>',
    `Why: kept in the change's audit entry (\`history\`), at most ${MAX_REASON_LENGTH} characters.`,
  );
}

/** The `reason` of a change's request body: the option's text, or nothing. */
export function reasonOf(options: { readonly reason?: string }): { reason?: string } {
  return options.reason === undefined ? {} : { reason: options.reason };
}

/** The `--stage <stage>` option, which every subcommand takes (a string; `parseStage` checks it). */
export function stageOption(): Option {
  return new Option('--stage <stage>', `${STAGES.join('|')}. ${STAGE_DESCRIPTION}`);
}

/**
 * Adds a subcommand that works on one key: `<name> <key-id> [--stage <stage>]`.
 *
 * @returns The subcommand, for its further options and its action `(keyId, options)`.
 */
export function keyIdCommand(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .argument('<key-id>', 'The key, as `list` shows it (key_…).')
    .addOption(stageOption());
}

/**
 * A subcommand that does one thing to one key, `<name> <key-id> [--reason TEXT] [--stage <stage>]`:
 * its action opens the target and runs `operation`.
 *
 * @param operation Does the work and prints what it did; throws an `Error` for the operator.
 */
export function keyIdSubcommand(
  name: string,
  description: string,
  operation: (
    keyId: string,
    target: Target,
    dependencies: KeysCommandDependencies,
    reason: { reason?: string },
  ) => Promise<void>,
): KeysSubcommand {
  return {
    forms: [`${name} <key-id> [--reason TEXT]`],
    register: (program, dependencies) =>
      keyIdCommand(program, name, description)
        .addOption(reasonOption())
        .action(async (keyId: string, options: { stage?: string; reason?: string }) => {
          const target = await openTarget(parseStage(options.stage), dependencies);
          await operation(keyId, target, dependencies, reasonOf(options));
        }),
  };
}
