/** The `--stage` of every command that works on the local stack or a deployed stage. */
import { isStageName, STAGES, type StageName } from '../../stages.ts';
import { UsageError } from './program.ts';

/**
 * The stage named by `--stage`, or `undefined` (the local stack) without it.
 *
 * @throws UsageError for a name that is no stage.
 */
export function parseStage(stage: string | undefined): StageName | undefined {
  if (stage === undefined || isStageName(stage)) return stage;
  throw new UsageError(`Unknown stage "${stage}": use one of ${STAGES.join(', ')}.`);
}
