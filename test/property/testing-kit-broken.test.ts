/**
 * checkSinkTask must catch broken connectors with a small counter-example, and must pass correct
 * ones: a counter that claims idempotence (test/fixtures/connectors/broken-counter.ts), a sink that
 * only writes on stop(), and their correct counterparts.
 */
import { describe, expect, it } from 'vitest';
import { SinkTask, type SinkRecord } from '../../src/connect/index.js';
import { checkSinkTask, recordId, SinkTaskCheckError } from '../../src/testing/index.js';
import { BrokenCounterTask, counter } from '../fixtures/connectors/broken-counter.js';

const perRun = (prefix: string) => (run: { index: number }) => ({ 'counter.name': `${prefix}-${run.index}` });
const observeCounter = (run: { props: Readonly<Record<string, string>> }) =>
  counter(run.props['counter.name']!);

async function counterExample(promise: Promise<unknown>): Promise<SinkTaskCheckError> {
  const error = await promise.then(
    () => expect.unreachable('checkSinkTask passed a broken connector'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SinkTaskCheckError);
  return error as SinkTaskCheckError;
}

/** The fix for BrokenCounterTask: count each record id once. */
class DedupingCounterTask extends SinkTask {
  #counts = new Map<string, number>();
  version(): string {
    return 'fixture';
  }
  start(props: Readonly<Record<string, string>>): void {
    this.#counts = counter(props['counter.name']!);
  }
  put(records: readonly SinkRecord[]): void {
    for (const r of records) this.#counts.set(recordId(r), 1);
  }
  stop(): void {}
}

/** Buffers every put and writes only in stop(): a crash loses records that were already ACCEPTed. */
class WriteOnStopTask extends DedupingCounterTask {
  #buffer: SinkRecord[] = [];
  #props: Readonly<Record<string, string>> = {};
  override start(props: Readonly<Record<string, string>>): void {
    this.#props = props;
  }
  override put(records: readonly SinkRecord[]): void {
    this.#buffer.push(...records);
  }
  override stop(): void {
    super.start(this.#props);
    super.put(this.#buffer);
  }
}

describe('checkSinkTask', () => {
  it('catches a non-idempotent counter that claims idempotence: one record, written twice', async () => {
    const error = await counterExample(
      checkSinkTask(() => new BrokenCounterTask(), {
        props: perRun('broken'),
        observe: observeCounter,
        idempotent: true,
        numRuns: 100,
      }),
    );
    // shrunk to the smallest story: one record, one faulty delivery, then the drain redelivers it
    expect(error.schedule.records).toHaveLength(1);
    expect(error.schedule.rounds.flat()).toHaveLength(1);
    expect(error.violations).toEqual([
      expect.stringMatching(/^duplicate: sharesink-check\/0\/0 is written 2 times/),
    ]);
    expect(error.message).toContain('Schedule:');
    expect(error.message).toContain('(delivery 2)');
    expect(error.message).toMatch(/seed: -?\d+, path: "[\d:]+"/);
    expect(error.message).toContain('examples: [error.schedule]');
  });

  it('passes the same counter when only at-least-once is claimed, over schedules that redeliver', async () => {
    const report = await checkSinkTask(() => new BrokenCounterTask(), {
      props: perRun('at-least-once'),
      observe: observeCounter,
      numRuns: 60,
    });
    expect(report.runs).toBe(60);
    expect(report.redeliveries).toBeGreaterThan(0);
  });

  it('passes the fixed, deduplicating counter as idempotent', async () => {
    const report = await checkSinkTask(() => new DedupingCounterTask(), {
      props: perRun('dedupe'),
      observe: observeCounter,
      idempotent: true,
      numRuns: 60,
    });
    expect(report.redeliveries).toBeGreaterThan(0);
  });

  it('catches a sink that writes only on stop(): an ACCEPTed record is lost in a crash', async () => {
    const error = await counterExample(
      checkSinkTask(() => new WriteOnStopTask(), {
        props: perRun('write-on-stop'),
        observe: observeCounter,
        numRuns: 100,
      }),
    );
    expect(error.violations[0]).toMatch(/^lost: sharesink-check\/0\/0 was ACCEPTed/);
    expect(error.schedule.records).toHaveLength(1);
    expect(error.message).toContain('PROCESS CRASH');
  });

  it('reports a phantom write, and the seed and path replay the same counter-example', async () => {
    const options = {
      props: perRun('phantom'),
      observe: (run: { props: Readonly<Record<string, string>> }) =>
        new Map([...counter(run.props['counter.name']!), ['elsewhere/0/7', 1]]),
      numRuns: 20,
    };
    const first = await counterExample(checkSinkTask(() => new DedupingCounterTask(), options));
    expect(first.violations).toContain(
      'phantom: elsewhere/0/7 is written 1× but was never passed to put() (not a record of this run)',
    );
    const again = await counterExample(
      checkSinkTask(() => new DedupingCounterTask(), {
        ...options,
        seed: first.seed,
        path: first.path ?? undefined,
      }),
    );
    expect(again.schedule).toEqual(first.schedule);
    const exact = await counterExample(
      checkSinkTask(() => new DedupingCounterTask(), { ...options, examples: [first.schedule], numRuns: 1 }),
    );
    expect(exact.schedule).toEqual(first.schedule);
  });
});
