/**
 * sharesink's own sinks through checkSinkTask. FileStreamSink appends lines and keeps no record
 * coordinates, so it is checked for at-least-once only (no loss): redeliveries append again, which is
 * what Connect's FileStreamSink does too. The record id travels in the value for observe() to count.
 * (PostgresSink, idempotent, is checked against a real server in test/integration/testing-kit-postgres.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStreamSinkTask } from '../../src/sinks/file/index.js';
import { checkSinkTask, SinkTaskCheckError } from '../../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sharesink-kit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines of the run's file → times each record id is written. */
function countLines(file: string): Map<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Map();
  }
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const { id } = JSON.parse(line) as { id: string };
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

const fileSink = {
  props: (run: { index: number }) => ({ file: join(dir, `run-${run.index}.txt`) }),
  observe: (run: { props: Readonly<Record<string, string>> }) => countLines(run.props.file!),
  cleanup: (run: { props: Readonly<Record<string, string>> }) => rmSync(run.props.file!, { force: true }),
  mapValue: (value: unknown, record: { id: string }) => ({ id: record.id, value }),
};

describe('FileStreamSink under checkSinkTask', () => {
  it('loses no ACCEPTed record through crashes, lost replies, expired locks and rejections', async () => {
    const report = await checkSinkTask(() => new FileStreamSinkTask(), { ...fileSink, numRuns: 40 });
    expect(report.runs).toBe(40);
    expect(report.redeliveries).toBeGreaterThan(0);
  });

  it('is not idempotent, and checkSinkTask says so with one record appended twice', async () => {
    const error = await checkSinkTask(() => new FileStreamSinkTask(), {
      ...fileSink,
      idempotent: true,
      numRuns: 40,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkTaskCheckError);
    const { schedule, violations } = error as SinkTaskCheckError;
    expect(schedule.records).toHaveLength(1);
    expect(schedule.rounds.flat()).toHaveLength(1);
    expect(violations).toEqual([expect.stringMatching(/^duplicate: .* is written 2 times/)]);
  });
});
