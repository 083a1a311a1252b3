/**
 * What the restore command prints: a line per finding and a summary line of counts, or with
 * `--json` one JSON document for scripts.
 */

import type { RestoreOutcome } from '../../../shared/keys/admin-ports.ts';
import { columns } from '../common/text.ts';
import type { Finding, RestorePlan } from './rules.ts';

/** How a finding's writes ended in a run with `--apply`. */
export type Outcome = RestoreOutcome | 'failed';

/** A finding with, after `--apply`, how its writes ended and what else was done for it. */
export interface ReportedFinding extends Finding {
  readonly outcome?: Outcome;
  /** Why the writes failed (`failed`). */
  readonly error?: string;
}

/** Everything a run reports. */
export interface Report {
  readonly table: 'pets' | 'keys';
  readonly target: string;
  readonly liveTable: string;
  readonly goodTable: string;
  readonly applied: boolean;
  readonly findings: readonly ReportedFinding[];
  readonly sequence?: RestorePlan['sequence'];
}

/** The counts of a report, as the summary line and `--json` give them. */
export function countsOf({ findings }: Pick<Report, 'findings'>) {
  const count = (test: (finding: ReportedFinding) => boolean) => findings.filter(test).length;
  return {
    missing: count((finding) => finding.state === 'missing'),
    differing: count((finding) => finding.state === 'differs'),
    toWrite: count((finding) => finding.writes.length > 0),
    leftAsIs: count((finding) => finding.writes.length === 0),
    written: count((finding) => finding.outcome === 'written'),
    changed: count((finding) => finding.outcome === 'changed'),
    failed: count((finding) => finding.outcome === 'failed'),
  };
}

/** Whether a run with `--apply` left something undone (a changed item or a failed write). */
export function incomplete(report: Report): boolean {
  const { changed, failed } = countsOf(report);
  return changed + failed > 0;
}

/** What a finding's line says after its subject. */
function describe(finding: ReportedFinding, applied: boolean): string {
  const would = applied ? '' : 'would be ';
  const phrases = [
    ...finding.changes.map((change) => `${would}${change}`),
    ...finding.kept.map((reason) => `left as is: ${reason}`),
  ];
  const outcome = {
    written: [],
    changed: ['NOT WRITTEN: changed since the comparison, run again'],
    failed: [`FAILED: ${finding.error}`],
  }[finding.outcome ?? 'written'];
  return [...phrases, ...outcome].join('; ');
}

/** The report as lines of text, the summary line last. */
export function reportLines(report: Report): string[] {
  const counts = countsOf(report);
  const lines = [
    `${report.table} of ${report.target}: live table ${report.liveTable}, good copy ${report.goodTable}.`,
    ...columns(
      report.findings.map((finding) => [
        finding.state,
        `${finding.subject}:`,
        describe(finding, report.applied),
      ]),
    ),
  ];
  const { sequence } = report;
  if (sequence) {
    const verb = report.applied ? 'raised' : 'would be raised';
    lines.push(`pet id sequence ${verb} from ${sequence.live ?? 'none'} to ${sequence.to}`);
  }
  const found = `${counts.missing} missing, ${counts.differing} differing`;
  lines.push(
    report.applied
      ? `${found}: ${counts.written} written, ${counts.leftAsIs} left as is, ${counts.changed} changed since the comparison, ${counts.failed} failed.`
      : `Dry run, nothing written: ${found}: ${counts.toWrite} to write, ${counts.leftAsIs} left as is (--apply writes).`,
  );
  return lines;
}

/** The report as one JSON document: the run, each finding without its items, the counts. */
export function reportJson(report: Report): string {
  const findings = report.findings.map(
    ({ writes: _writes, restoredKey: _restoredKey, keyId: _keyId, ...finding }) => finding,
  );
  return JSON.stringify({ ...report, findings, counts: countsOf(report) }, null, 2);
}
