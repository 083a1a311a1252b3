/** Tokens reported as leaked (docs/operations.md, "Leaked keys"), revoked by the key service. */
import pLimit from 'p-limit';
import type { Actor } from '../audit/entry.ts';
import type { ApiKeyRecord } from './key-records.ts';
import type { KeyService } from './key-service.ts';
import { hashToken } from './token.ts';

/** Who revokes a reported key: GitHub's secret scanning, which the endpoint's signature proves. */
export const LEAK_REPORTER: Actor = { type: 'system', id: 'github-secret-scanning' };

const REVOCATIONS_AT_ONCE = 16;
const MAX_REASON_LENGTH = 500;

/** A token found in public: the token, its type, where (`url`) and on what (`source`). */
export interface LeakReport {
  readonly token: string;
  readonly type: string;
  readonly url: string;
  readonly source: string;
}

/** What a report is of this stage: the token's hash, and whether it is or was one of its keys'. */
export interface LeakVerdict {
  readonly tokenHash: string;
  readonly type: string;
  readonly knownKey: boolean;
}

/** A key this report revoked, where its token was found: the `key.leaked` event's detail. */
export interface LeakedKey {
  readonly keyId: string;
  readonly owner?: string;
  readonly url: string;
  readonly source: string;
  readonly revokedAt: string;
}

/** A verdict per report, in order; the keys revoked now; the revocations that failed. */
export interface LeakOutcome {
  readonly verdicts: readonly LeakVerdict[];
  readonly revoked: readonly LeakedKey[];
  readonly failed: readonly { readonly keyId: string; readonly error: unknown }[];
}

/** Unless revoked, or a rolled-out token past its grace; an expired key is (it can be lifted). */
export function mustRevoke(row: ApiKeyRecord, nowMs: number): boolean {
  return !row.revokedAt && !(row.graceUntil && Date.parse(row.graceUntil) <= nowMs);
}

/** The `key.revoked` entry's reason, at most 500 characters. */
export function leakReason(report: LeakReport): string {
  const where = report.url ? ` at ${report.url}` : '';
  return `Leaked: GitHub secret scanning found the token${where} (source: ${report.source}).`.slice(
    0,
    MAX_REASON_LENGTH,
  );
}

/**
 * Labels each report and revokes each key of this stage one names (`mustRevoke`), once, through
 * the key service (`key.revoked`, {@link LEAK_REPORTER}), 16 at once; a token of another stage or
 * with a wrong checksum is never looked up.
 * @throws StoreUnavailableError when the look-up fails (nothing changed then).
 */
export async function revokeLeakedKeys(
  service: KeyService,
  reports: readonly LeakReport[],
  context: { readonly requestId: string; readonly signal?: AbortSignal; readonly nowMs: number },
): Promise<LeakOutcome> {
  const keys = await service.keysOfTokens(
    reports.map(({ token }) => token),
    { signal: context.signal },
  );
  const firstReport = new Map<string, LeakReport>();
  const verdicts = reports.map((report) => {
    const tokenHash = hashToken(report.token);
    const row = keys.get(tokenHash);
    if (row && mustRevoke(row, context.nowMs) && !firstReport.has(row.keyId)) {
      firstReport.set(row.keyId, report);
    }
    return { tokenHash, type: report.type, knownKey: row !== undefined };
  });
  const limit = pLimit(REVOCATIONS_AT_ONCE);
  const targets = [...firstReport];
  const settled = await Promise.allSettled(
    targets.map(([keyId, report]) =>
      limit(() =>
        service.revokeOnRecord(keyId, {
          actor: LEAK_REPORTER,
          requestId: context.requestId,
          reason: leakReason(report),
        }),
      ),
    ),
  );
  const revoked: LeakedKey[] = [];
  const failed: { keyId: string; error: unknown }[] = [];
  for (const [at, result] of settled.entries()) {
    const [keyId, { url, source }] = targets[at] as [string, LeakReport];
    if (result.status === 'rejected') failed.push({ keyId, error: result.reason });
    else if (!result.value.previous.revokedAt && result.value.key.revokedAt) {
      const { owner, revokedAt } = result.value.key;
      revoked.push({ keyId, ...(owner && { owner }), url, source, revokedAt });
    }
  }
  return { verdicts, revoked, failed };
}
