/**
 * The plan options of `create` and `set-plan` (docs/rate-limits.md): `--plan`, and for
 * Enterprise the key's own limits, `--per-minute` and `--per-day`.
 */
import { type Command, Option } from 'commander';
import { customLimits } from '../../../shared/keys/key-records.ts';
import {
  ALL_PLAN_IDS,
  InvalidLimitsError,
  isPlanId,
  MAX_PER_DAY,
  MAX_PER_MINUTE,
  type PlanId,
  type RequestLimits,
} from '../../../shared/plans.ts';
import { UsageError } from '../common/program.ts';

/** The plan options as commander parses them: text, unchecked. */
export interface PlanOptions {
  readonly plan?: string;
  readonly perMinute?: string;
  readonly perDay?: string;
}

/** A plan and, for Enterprise, the key's own limits, checked with `customLimits`. */
export interface PlanChoice {
  readonly plan: PlanId;
  readonly limits?: RequestLimits;
}

/** The limit options' terms and descriptions, for the subcommands and the overview in `--help`. */
export const LIMIT_OPTIONS = {
  perMinute: {
    flag: '--per-minute',
    description: `An Enterprise key's requests per UTC minute: a whole number, 1 to ${MAX_PER_MINUTE}.`,
  },
  perDay: {
    flag: '--per-day',
    description: `An Enterprise key's requests per UTC day: a whole number, from the per-minute limit to ${MAX_PER_DAY}.`,
  },
} as const;

/**
 * A limit option's text as a number for the rule: decimal digits only, since `Number`
 * alone would read `1e3`, `0x10` or `` as numbers; anything else is NaN, which it refuses.
 */
function limitOf(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : Number.NaN;
}

/** Adds `--plan <plan>`, `--per-minute <N>` and `--per-day <N>` to a subcommand. */
export function addPlanOptions(command: Command): Command {
  return command
    .addOption(new Option('--plan <plan>', `${ALL_PLAN_IDS.join('|')}: the key's plan.`))
    .addOption(
      new Option(`${LIMIT_OPTIONS.perMinute.flag} <N>`, LIMIT_OPTIONS.perMinute.description),
    )
    .addOption(new Option(`${LIMIT_OPTIONS.perDay.flag} <N>`, LIMIT_OPTIONS.perDay.description));
}

/**
 * The plan, and the limits for Enterprise, that a subcommand's options ask for, checked by the
 * rule of keys' limits (`customLimits`), the one the key service applies.
 *
 * @param command The subcommand's name, for messages.
 * @throws UsageError for a missing or unknown plan, or limits that the rule refuses (limits for a
 *   standard plan, Enterprise without both, numbers out of range).
 */
export function planChoice(command: string, options: PlanOptions): PlanChoice {
  const { plan, perMinute, perDay } = options;
  if (plan === undefined)
    throw new UsageError(`${command} needs --plan ${ALL_PLAN_IDS.join('|')}.`);
  if (!isPlanId(plan)) {
    throw new UsageError(`Unknown plan "${plan}": use one of ${ALL_PLAN_IDS.join(', ')}.`);
  }
  const given =
    perMinute === undefined && perDay === undefined
      ? undefined
      : {
          perMinute: perMinute === undefined ? undefined : limitOf(perMinute),
          perDay: perDay === undefined ? undefined : limitOf(perDay),
        };
  try {
    const limits = customLimits(plan, given);
    return { plan, ...(limits && { limits }) };
  } catch (error) {
    if (!(error instanceof InvalidLimitsError)) throw error;
    throw new UsageError(`Invalid limits: ${error.message}.`);
  }
}
