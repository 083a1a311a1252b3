/**
 * `check <token>`: says, offline, whether a string is a well-formed Petstore token and of which
 * stage (prefix and checksum, shared/keys/token.ts); it does not say whether the key exists.
 */

import { inspectToken } from '../../../shared/keys/token.ts';
import type { KeysSubcommand } from './command.ts';

/** `check <token>`: exit status 0 for a well-formed token, 1 otherwise. */
export const check: KeysSubcommand = {
  forms: ['check <token>'],
  register: (program, { stdout }) =>
    program
      .command('check')
      .description(
        'Say whether a string is a well-formed Petstore token, and of which stage (offline).',
      )
      .argument('<token>', 'The string to check.')
      .action((token: string) => {
        const shape = inspectToken(token);
        if (shape.kind === 'malformed') {
          throw new Error(`Not a Petstore token: ${shape.reason}.`);
        }
        stdout(`A well-formed Petstore token of stage ${shape.stage} (prefix and checksum hold).`);
      }),
};
