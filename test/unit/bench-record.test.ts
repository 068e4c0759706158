// bench/record.ts: only a full default run becomes bench/results/latest.{json,md}.
import { describe, expect, it } from 'vitest';
import { notTheRecordBecause, partialReasons, type RunShape } from '../../bench/record.js';

const shape = (o: Partial<RunShape> = {}): RunShape => ({
  full: false,
  only: undefined,
  scale: 1,
  e2eMaxRate: undefined,
  steadyMaxRate: undefined,
  ...o,
});

describe('the benchmark record', () => {
  it('is a default run of either mode, with or without a profile or a kept broker', () => {
    expect(partialReasons(shape())).toEqual([]);
    expect(partialReasons(shape({ full: true }))).toEqual([]);
    expect(notTheRecordBecause(shape(), [])).toEqual([]);
  });

  it('is not a run of some scenarios only, and says which were left out', () => {
    expect(partialReasons(shape({ only: '8' }))).toEqual([
      '--only=8 (scenarios 1, 2, 3, 4, 5, 6, 9, 11 not run)',
    ]);
    expect(partialReasons(shape({ full: true, only: '1,2,3,4,5,6' }))).toEqual([
      '--only=1,2,3,4,5,6 (scenarios 7, 8, 9, 10, 11 not run)',
    ]);
    // --only naming every default scenario of the mode is a default run
    expect(partialReasons(shape({ only: '1,2,3,4,5,6,9,11' }))).toEqual([]);
    // the rebalance scenario (11) alone is partial
    expect(partialReasons(shape({ only: '11' }))).toEqual([
      '--only=11 (scenarios 1, 2, 3, 4, 5, 6, 9 not run)',
    ]);
  });

  it('is not a run that measured the sources under tsx instead of the built package', () => {
    expect(partialReasons(shape({ sourcesUnderTsx: true }))).toEqual([
      'SHARESINK_BENCH_CHILD=tsx (sharesink ran from its sources, not as built)',
    ]);
  });

  it('is not a run with tuned rates, another scale or a failed step', () => {
    expect(partialReasons(shape({ steadyMaxRate: '20000', e2eMaxRate: '5000', scale: 0.1 }))).toEqual([
      '--scale=0.1',
      '--e2e-max-rate=5000',
      '--steady-max-rate=20000',
    ]);
    expect(notTheRecordBecause(shape(), [{ step: 'postgres' }])).toEqual(['1 step(s) failed (postgres)']);
  });
});
