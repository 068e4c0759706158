/**
 * Prometheus text exposition format (version 0.0.4): `# HELP`, `# TYPE`, then one line per sample.
 * Pure formatting; what is measured lives in metrics.ts.
 */
export type MetricType = 'counter' | 'gauge' | 'summary' | 'histogram';

export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
  /** Appended to the family name: `_sum` / `_count` for a summary, also `_bucket` for a histogram. */
  readonly suffix?: string;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Families without samples are left out: Prometheus needs no HELP for a series that never appears. */
export function formatPrometheus(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    if (f.samples.length === 0) continue;
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples)
      out.push(`${f.name}${s.suffix ?? ''}${labelText(s.labels)} ${formatValue(s.value)}`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
