/**
 * What `errantRecordReporter()` does under `errors.tolerance=none`, as docs/delivery-guarantees.md and
 * docs/connector-authoring.md say: in share mode the reported records are REJECTed, the rest ACCEPTed,
 * and the task runs on (the task chose to report them); in classic mode the put fails and so does the
 * task, as Connect's reporter throws under `none`.
 */
import { describe, expect, it } from 'vitest';
import { putVerdict } from '../../../../src/actors/errors/tolerance.js';
import type { PutResult } from '../../../../src/pool/protocol.js';
import { BacklogConsumer, HeldPool, runnerOver } from '../task/share/share-task-runner-fakes.js';

const errant: PutResult = {
  kind: 'perRecord',
  rejected: [{ index: 2, message: 'bad id' }],
  converterFailures: [],
} as unknown as PutResult;

describe('errantRecordReporter() under errors.tolerance=none', () => {
  it('share mode: REJECTs the reported records, ACCEPTs the rest, and the task runs on', async () => {
    const consumer = new BacklogConsumer(1);
    const pool = new HeldPool();
    const failures: Error[] = [];
    const runner = runnerOver(consumer, pool, {
      errorsTolerance: 'none',
      onFailure: (e) => failures.push(e),
    });
    await runner.start();
    while (pool.puts.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    pool.puts[0]!.end({ kind: 'perRecord', rejected: [{ index: 2, message: 'bad id' }] });
    while (consumer.acks.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    // it goes on fetching: the task did not stop
    const polls = consumer.polls;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(consumer.polls).toBeGreaterThan(polls);
    await runner.stop();
    expect(consumer.acks.sort()).toEqual(['accept 0..9', 'reject 2..2']);
    expect(failures).toEqual([]);
  });

  it('classic mode: the put fails, and so does the task', () => {
    expect(putVerdict(errant, 'classic', 'none', new Map()).event).toMatchObject({ type: 'PUT_FATAL' });
  });
});
