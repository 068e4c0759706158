/**
 * What `sharesink check` prints: a progress line per run, the summary of a check that passed, and the
 * bug report of one that failed (the shrunk schedule, the records, how to replay it).
 */
import type { CheckConnectorReport, CheckProgress } from '../testing/real/check-connector.js';
import { formatRunSchedule, type RealFaultKind } from '../testing/real/schedule.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function faultCounts(
  faults: Readonly<Partial<Record<RealFaultKind, number>>>,
  kinds?: readonly RealFaultKind[],
): string {
  const entries = (kinds ?? (Object.keys(faults) as RealFaultKind[])).map((k) => `${k} ${faults[k] ?? 0}`);
  return entries.join(', ');
}

export function formatCheckProgress(p: CheckProgress, runs: number): string {
  const r = p.run;
  const verdict =
    r.lost.length + r.duplicated.length + r.undrained.length === 0
      ? 'ok'
      : `FAILED (${[
          r.lost.length > 0 ? `${r.lost.length} lost` : '',
          r.duplicated.length > 0 ? `${r.duplicated.length} duplicated` : '',
          r.undrained.length > 0 ? `${r.undrained.length} never done` : '',
        ]
          .filter((x) => x !== '')
          .join(', ')})`;
  const where = p.phase === 'run' ? `run ${p.runs}/${runs}` : `shrinking (${p.shrinks})`;
  const fired = Object.entries(p.faults).filter(([, n]) => n > 0).length;
  return `${where}  ${seconds(p.elapsedMs)}  ${r.records} record${r.records === 1 ? '' : 's'}, ${fired} fault kinds so far  last: ${verdict}`;
}

export function formatCheckSummary(name: string, report: CheckConnectorReport): string {
  const never = report.faultKinds.filter((k) => report.faults[k] === 0);
  const lines = [
    `sharesink check: ${name} passed ${report.runs} run${report.runs === 1 ? '' : 's'} in ${seconds(report.elapsedMs)}` +
      (report.interrupted ? ' (stopped by --time-limit)' : ''),
    `  records checked: ${report.recordsChecked}`,
    `  faults injected: ${faultCounts(report.faults, report.faultKinds)}`,
    ...(report.faultKinds.includes('broker-restart') && report.parallel === 1
      ? ['  runs: one at a time (a broker restart reaches every run beside it; --parallel does not apply)']
      : []),
    ...(never.length > 0
      ? [
          `  never fired: ${never.join(', ')} (drawn in no run, or nothing to hit when drawn: more runs give them their chance)`,
        ]
      : []),
    `  seed: ${report.seed}`,
  ];
  return `${lines.join('\n')}\n`;
}

const list = (ids: readonly string[], max = 10) =>
  ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} … (${ids.length - max} more)`;

export function formatCheckFailure(
  name: string,
  report: CheckConnectorReport,
  replay: string,
  idempotent: boolean,
): string {
  const f = report.failure!;
  const r = f.run;
  const what = [
    r.lost.length > 0 ? `${r.lost.length} record${r.lost.length === 1 ? '' : 's'} lost` : '',
    r.duplicated.length > 0
      ? `${r.duplicated.length} record${r.duplicated.length === 1 ? '' : 's'} duplicated${idempotent ? ' (declared --idempotent)' : ''}`
      : '',
    r.undrained.length > 0
      ? `${r.undrained.length} record${r.undrained.length === 1 ? '' : 's'} never done`
      : '',
  ].filter((x) => x !== '');
  const lines = [
    `sharesink check: ${name} FAILED: ${what.join(', ')}`,
    `  ${report.interrupted ? 'smallest schedule found before --time-limit (shrinking was cut short)' : 'minimal schedule'} (after ${report.runs} run${report.runs === 1 ? '' : 's'} and ${report.shrinks} shrinking run${report.shrinks === 1 ? '' : 's'}):`,
    `    ${formatRunSchedule(f.schedule)}`,
    '    (then, as in every run: a clean drain until the broker says every record is done, and a graceful stop)',
    ...(r.lost.length > 0
      ? [`  lost (the broker says done, the sink does not have them): ${list(r.lost)}`]
      : []),
    ...(r.duplicated.length > 0 ? [`  duplicated (in the sink more than once): ${list(r.duplicated)}`] : []),
    ...(r.undrained.length > 0
      ? [`  never done (the broker did not see them acknowledged or committed in time): ${list(r.undrained)}`]
      : []),
    `  faults that fired in it: ${faultCounts(r.fired) || 'none'}`,
    `  replay: ${replay} --seed ${f.seed}${f.path !== undefined ? ` --path ${f.path}` : ''}`,
    `  worker logs: ${r.dir}`,
  ];
  return `${lines.join('\n')}\n`;
}
