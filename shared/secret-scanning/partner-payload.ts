/**
 * What GitHub's secret scanning partner program sends and reads back: the report's JSON array of
 * matches, and the feedback (docs/operations.md, "Leaked keys").
 */
import * as v from 'valibot';
import type { LeakVerdict } from '../keys/leaked-tokens.ts';

/** Largest report accepted, in bytes (1 MiB): 413 above. */
export const MAX_REPORT_BYTES = 1024 * 1024;

/** A report: each match's token, type, URL (possibly empty) and source (older reports lack it). */
export const LeakReportsSchema = v.array(
  v.object({
    token: v.string(),
    type: v.string(),
    url: v.optional(v.string(), ''),
    source: v.optional(v.string(), 'unknown'),
  }),
);

/** One element of the answer: the token's SHA-256 (lower-case hex), its type and GitHub's label. */
export interface TokenFeedback {
  readonly token_hash: string;
  readonly token_type: string;
  readonly label: 'true_positive' | 'false_positive';
}

/** The feedback on a verdict: `true_positive` for a token that is or was a key of this stage. */
export function feedbackOf(verdict: LeakVerdict): TokenFeedback {
  return {
    token_hash: verdict.tokenHash,
    token_type: verdict.type,
    label: verdict.knownKey ? 'true_positive' : 'false_positive',
  };
}
