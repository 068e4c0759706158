import { describe, expect, it } from 'vitest';
import { formatPrometheus, formatValue } from '../../../../src/rest/metrics/prometheus.js';

describe('formatPrometheus', () => {
  it('writes HELP and TYPE once per family, then one line per sample', () => {
    const text = formatPrometheus([
      {
        name: 'sharesink_task_puts_total',
        help: 'put() calls.',
        type: 'counter',
        samples: [
          { labels: { connector: 'a', task: '0' }, value: 3 },
          { labels: { connector: 'a', task: '1' }, value: 4 },
        ],
      },
      { name: 'sharesink_process_uptime_seconds', help: 'Uptime.', type: 'gauge', samples: [{ value: 1.5 }] },
    ]);
    expect(text).toBe(
      [
        '# HELP sharesink_task_puts_total put() calls.',
        '# TYPE sharesink_task_puts_total counter',
        'sharesink_task_puts_total{connector="a",task="0"} 3',
        'sharesink_task_puts_total{connector="a",task="1"} 4',
        '# HELP sharesink_process_uptime_seconds Uptime.',
        '# TYPE sharesink_process_uptime_seconds gauge',
        'sharesink_process_uptime_seconds 1.5',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and help text, and writes summary suffixes', () => {
    const text = formatPrometheus([
      {
        name: 'x',
        help: 'a \\ b\nc',
        type: 'summary',
        samples: [
          { labels: { connector: 'say "hi"\\\n' }, value: 2, suffix: '_sum' },
          { labels: { connector: 'say "hi"\\\n' }, value: 1, suffix: '_count' },
        ],
      },
    ]);
    expect(text).toContain('# HELP x a \\\\ b\\nc');
    expect(text).toContain('x_sum{connector="say \\"hi\\"\\\\\\n"} 2');
    expect(text).toContain('x_count{connector="say \\"hi\\"\\\\\\n"} 1');
  });

  it('leaves out families without samples and spells special values as Prometheus does', () => {
    expect(formatPrometheus([{ name: 'empty', help: 'h', type: 'gauge', samples: [] }])).toBe('');
    expect([NaN, Infinity, -Infinity, 0.25].map(formatValue)).toEqual(['NaN', '+Inf', '-Inf', '0.25']);
  });
});
