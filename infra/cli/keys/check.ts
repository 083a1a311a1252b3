/**
 * `check <token>`: says, offline, whether a string is a well-formed Petstore token and of which
 * stage (prefix and checksum, shared/keys/token.ts); it does not say whether the key exists.
 * `check <key-id> --stage S [--region R]`: whether each region's API Gateway holds the key as the
 * keys table says (region-check.ts).
 */

import { inspectToken } from '../../../shared/keys/token.ts';
import { UsageError } from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import { type KeysSubcommand, regionOption, stageOption } from './command.ts';
import { checkRegions } from './region-check.ts';

/** A key id as the admin API issues it. */
const KEY_ID = /^key_[0-9a-f]{16}$/;

/** `check`: exit status 0 for a well-formed token or a key every region agrees on, 1 otherwise. */
export const check: KeysSubcommand = {
  forms: ['check <token>', 'check <key-id> --stage STAGE [--region REGION]'],
  register: (program, dependencies) =>
    program
      .command('check')
      .description(
        "Say whether a string is a well-formed Petstore token, and of which stage (offline); or whether each region's API Gateway holds a key as the keys table says.",
      )
      .argument('<token|key-id>', 'The token to check, or a key id (key_…) with --stage.')
      .addOption(stageOption())
      .addOption(regionOption())
      .action(async (value: string, options: { stage?: string; region?: string }) => {
        const stage = parseStage(options.stage);
        if (KEY_ID.test(value)) {
          if (stage === undefined) {
            throw new UsageError(
              'check <key-id> needs --stage: the local stack has no API Gateway API keys.',
            );
          }
          await checkRegions(value, stage, options.region, dependencies);
          return;
        }
        if (stage !== undefined || options.region !== undefined) {
          throw new UsageError(
            'A token is checked offline: --stage and --region go with a key id.',
          );
        }
        const shape = inspectToken(value);
        if (shape.kind === 'malformed') {
          throw new Error(`Not a Petstore token: ${shape.reason}.`);
        }
        dependencies.stdout(
          `A well-formed Petstore token of stage ${shape.stage} (prefix and checksum hold).`,
        );
      }),
};
