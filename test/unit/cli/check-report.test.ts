import { describe, expect, it } from 'vitest';
import { formatCheckSummary } from '../../../src/cli/check-report.js';
import type { CheckConnectorReport } from '../../../src/testing/real/check-connector.js';
import { REAL_FAULT_KINDS, type RealFaultKind } from '../../../src/testing/real/schedule.js';

const report = (faultKinds: readonly RealFaultKind[], parallel: number): CheckConnectorReport => ({
  ok: true,
  runs: 3,
  shrinks: 0,
  faults: Object.fromEntries(REAL_FAULT_KINDS.map((k) => [k, 1])) as Record<RealFaultKind, number>,
  faultKinds,
  recordsChecked: 12,
  elapsedMs: 4_000,
  seed: 7,
  interrupted: false,
  parallel,
  dir: '/tmp/x',
});

describe('formatCheckSummary', () => {
  it('says the runs went one at a time when broker restarts were among the faults', () => {
    const text = formatCheckSummary('c', report(['kill-mid-put', 'broker-restart'], 1));
    expect(text).toContain('runs: one at a time (a broker restart reaches every run beside it');
  });

  it('says nothing of it when no broker restart was asked for', () => {
    const text = formatCheckSummary('c', report(['kill-mid-put'], 2));
    expect(text).not.toContain('one at a time');
    expect(text).toContain('passed 3 runs');
  });
});
