// A classic task's stop is bounded when the coordinator stops answering: an offset commit or the
// consumer's leave that never ends is abandoned once the grace has run out again after the puts' grace
// (classic-stop.ts), with one WARN naming what was abandoned, and nothing that was not committed is
// reported as committed. Before, stop() waited for them forever. Scripted kafkajs consumer.
import { describe, expect, it, vi } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import { capturingLogger, type CapturedLine } from './cli/capturing-logger.js';
import {
  Offsets,
  runnerOptions,
  scriptedConsumer,
  ScriptedPool,
  within,
} from './classic-task-runner-fakes.js';

vi.mock('../../src/kafka/kafkajs/classic-consumer.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockClassicConsumer(await original()),
);
vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockDeadLetterQueue(await original()),
);

const { ClassicTaskRunner } = await import('../../src/actors/classic-task-runner.js');

const never = new Promise<void>(() => {});
const GRACE_MS = 100;
// fetch.max.wait.ms 0: the window after the puts' grace is its floor, 0 + 1000 ms (closeWindowMs)
const WINDOW_MS = 1_000;

async function started(pool: ScriptedPool, leaveAnswered?: Promise<void>) {
  const scripted = scriptedConsumer({ leaveAnswered });
  const { logger, lines } = capturingLogger('debug');
  const options: Partial<ClassicTaskRunnerOptions> = {
    shutdownGraceMs: GRACE_MS,
    logger,
    consumer: { 'max.poll.records': '100', 'fetch.max.wait.ms': '0', 'session.timeout.ms': '10000' },
  };
  const r = new ClassicTaskRunner(runnerOptions(pool, options).options);
  await r.start();
  const consumer = scripted.consumer();
  return { r, consumer, offsets: new Offsets(consumer), lines };
}

/** stop(), timed; fails the test rather than hang when it is not bounded. */
async function timedStop(r: { stop(): Promise<void> }): Promise<number> {
  const at = Date.now();
  expect(await within(r.stop(), GRACE_MS + WINDOW_MS + 2_000)).toBeUndefined();
  return Date.now() - at;
}

const warnings = (lines: readonly CapturedLine[]) => lines.filter((l) => l.level === 40);

describe('ClassicTaskRunner: a stop whose commit or leave is never answered', () => {
  it("a fetch's commit that never ends: given up after the window; the batch counts released, not committed", async () => {
    const pool = new ScriptedPool(() => ({}));
    const { r, consumer, offsets, lines } = await started(pool);
    offsets.holdCommits = never;
    const fetch = offsets.deliver(0, 0, 50);
    await vi.waitFor(() => expect(offsets.commits).toEqual([['0:50']]));

    const tookMs = await timedStop(r);
    expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS + WINDOW_MS - 50);
    expect(await within(fetch.settled, 100)).toBe('returned');
    expect(r.counters.snapshot()).toMatchObject({
      recordsAccepted: 0,
      recordsReleased: 50,
      recordsAckFailed: 0,
      commits: 0,
      commitFailures: 0,
    });
    expect(offsets.committed.size).toBe(0);
    expect(lines.some((l) => l.msg === 'resolved offsets committed')).toBe(false);
    const warns = warnings(lines);
    expect(warns.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^stop gave up waiting for the batches still ending \(puts being aborted, offset commits\) after 1000 ms/,
      ),
      'offset commit given up: the stop ran out of time; not committed, those records will be delivered again',
    ]);
    expect(warns[0]).toMatchObject({
      abandoned: 'the batches still ending (puts being aborted, offset commits)',
      notAwaited: [
        'the group join under way',
        'the consumer to leave the group and disconnect',
        'the dead-letter producer to close',
      ],
    });
    expect(warns[0]!.msg).toContain('session.timeout.ms (10000 ms)');
    expect(warns[1]).toMatchObject({
      topic: 't',
      partition: 0,
      offsets: [{ topic: 't', partitions: [{ partition: 0, offset: '50' }] }],
    });
    expect(lines.at(-1)!.msg).toBe('classic task stopped');
    // the leave still follows, in the background: the commit given up on, eachBatch returned
    await vi.waitFor(() => expect(afterJoin(consumer.calls)).toEqual(['disconnect', 'left']));
  });

  it('a commit of what the finished chunks resolved that never ends: the leave waits for it, and both are abandoned', async () => {
    // chunk 0..99 is written, chunk 100..199 holds its put past the grace: the fetch ends early and
    // commits 0:100 before kafkajs leaves (ClassicCommits.leftovers); kafkajs's leave waits for it
    const pool = new ScriptedPool((_p, first) => (first === 100 ? 'hold' : {}));
    const { r, consumer, offsets, lines } = await started(pool);
    offsets.holdCommits = never;
    const fetch = offsets.deliver(0, 0, 350);
    await vi.waitFor(() => expect(pool.puts).toHaveLength(2));

    const tookMs = await timedStop(r);
    expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS + WINDOW_MS - 50);
    expect(await within(fetch.settled, 100)).toBe('returned');
    expect(offsets.commits).toEqual([['0:100']]);
    expect(offsets.committed.size).toBe(0);
    expect(r.counters.snapshot()).toMatchObject({ commits: 0, commitFailures: 0, recordsReleased: 100 });
    const warns = warnings(lines);
    expect(warns.map((l) => l['abandoned'] ?? l.msg)).toEqual([
      'the consumer to leave the group and disconnect',
      'offset commit given up: the stop ran out of time; not committed, those records will be delivered again',
    ]);
    expect(warns[1]).toMatchObject({
      why: 'stop',
      offsets: [{ topic: 't', partitions: [{ partition: 0, offset: '100' }] }],
    });
    // once the commit is given up, eachBatch returns and kafkajs's leave goes on
    await vi.waitFor(() => expect(consumer.calls).toContain('left'));
  });

  it('a leave the coordinator never answers: abandoned after the window, one WARN naming it', async () => {
    const pool = new ScriptedPool(() => ({}));
    const { r, consumer, offsets, lines } = await started(pool, never);
    expect(await offsets.deliver(0, 0, 50).settled).toBe('returned');

    const tookMs = await timedStop(r);
    // nothing was running: the puts' grace is not waited out, only the window
    expect(tookMs).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    expect(tookMs).toBeLessThan(GRACE_MS + WINDOW_MS + 500);
    expect(afterJoin(consumer.calls)).toEqual(['disconnect']);
    // committed before the stop, and reported as such
    expect(offsets.commits).toEqual([['0:50']]);
    expect(r.counters.snapshot()).toMatchObject({ commits: 1, recordsAccepted: 50, recordsReleased: 0 });
    const warns = warnings(lines);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({
      abandoned: 'the consumer to leave the group and disconnect',
      notAwaited: ['the dead-letter producer to close'],
    });
    expect(warns[0]!.msg).toMatch(
      /^stop gave up waiting for the consumer to leave the group and disconnect after 1000 ms \(task.shutdown.graceful.timeout.ms, after the puts' grace\)/,
    );
  });

  it('a stop whose commits and leave are answered waits for them and warns of nothing', async () => {
    const pool = new ScriptedPool(() => ({}), 30);
    const { r, consumer, offsets, lines } = await started(pool);
    const fetch = offsets.deliver(0, 0, 50);
    const tookMs = await timedStop(r);
    expect(tookMs).toBeLessThan(WINDOW_MS);
    expect(await fetch.settled).toBe('returned');
    expect(offsets.commits).toEqual([['0:50']]);
    expect(afterJoin(consumer.calls)).toEqual(['disconnect', 'left']);
    expect(warnings(lines)).toEqual([]);
  });
});

function afterJoin(calls: readonly string[]): string[] {
  return calls.slice(calls.indexOf('joined') + 1);
}

describe('closeWindowMs', () => {
  it('is the grace again, but never shorter than a healthy leave: fetch.max.wait.ms + 1 s', async () => {
    const { closeWindowMs } = await import('../../src/actors/classic-stop.js');
    expect(closeWindowMs(5_000, 500)).toBe(5_000);
    // measured against the broker: a leave waits for the fetch in flight, up to 525 ms at 500
    expect(closeWindowMs(50, 500)).toBe(1_500);
    expect(closeWindowMs(0, 0)).toBe(1_000);
  });
});
