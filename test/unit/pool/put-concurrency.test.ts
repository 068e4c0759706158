/**
 * Put concurrency is not thread count (ADR 0007): a thread runs puts of different task instances while
 * they wait, one instance never runs two puts at once, a new put goes to the least busy thread, the
 * puts on a thread are bounded, and an abort costs a thread only when the put ignores it — the other
 * puts on that thread then come back `aborted` with `threadLost`, never as failures.
 */
import { describe, expect, it } from 'vitest';
import { readEvents, type FixtureEvent } from '../../fixtures/connectors/shared.js';
import { records, usePools, waitFor } from './pool-harness.js';

const { pool, task } = usePools();

/** The most puts that were running at one time, from the tasks' begin/end notes. */
function maxOverlap(events: readonly FixtureEvent[]): number {
  const edges = events
    .filter((e) => e.event === 'begin' || e.event === 'end' || e.event === 'aborted')
    .map((e) => ({ at: e['at'] as number, delta: e.event === 'begin' ? 1 : -1 }))
    // an end and a begin in the same millisecond did not overlap
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let max = 0;
  for (const { delta } of edges) max = Math.max(max, (running += delta));
  return max;
}

const began = (t: { events: string }): boolean => readEvents(t.events).some((e) => e.event === 'begin');

describe('put concurrency on the pool threads', () => {
  it('one thread runs the waiting puts of four task instances at once', async () => {
    const p = pool('waiting', 1);
    const tasks = Array.from({ length: 4 }, () => task({ 'wait.ms': '400' }));
    const results = await Promise.all(tasks.map((t) => p.put(t, records(['a']))));
    expect(results.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(1);
    expect(maxOverlap(tasks.flatMap((t) => readEvents(t.events)))).toBe(4);
  });

  it('never runs two puts of one task instance at once, even with room on the thread', async () => {
    const p = pool('waiting', 1, { putsPerThread: 4 });
    const t = task({ 'wait.ms': '150' });
    const results = await Promise.all([1, 2, 3].map((i) => p.put(t, records([`v${i}`]))));
    expect(results.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok']);
    const events = readEvents(t.events).filter((e) => e.event !== 'start');
    expect(events.map((e) => e.event)).toEqual(['begin', 'end', 'begin', 'end', 'begin', 'end']);
    expect(maxOverlap(events)).toBe(1);
  });

  it('a CPU-bound put goes to an idle thread rather than a busy one', async () => {
    const p = pool('waiting', 2);
    const first = task({ 'wait.ms': '600' });
    const second = task({ 'wait.ms': '300' });
    const busy = p.put(first, records(['spin']));
    await waitFor(() => began(first));
    const next = await p.put(second, records(['spin']));
    expect(next.kind).toBe('ok');
    expect(next.threadId).not.toBe((await busy).threadId);
  });

  it('puts of one task spread over the threads before they queue behind its instance', async () => {
    const p = pool('waiting', 2, { putsPerThread: 4 });
    const t = task({ 'wait.ms': '300' });
    const results = await Promise.all([p.put(t, records(['a'])), p.put(t, records(['b']))]);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(2);
  });

  it('never runs more than pool.puts.per.thread puts on a thread; the rest wait their turn', async () => {
    const p = pool('waiting', 1, { putsPerThread: 2 });
    const tasks = Array.from({ length: 5 }, () => task({ 'wait.ms': '200' }));
    const results = await Promise.all(tasks.map((t) => p.put(t, records(['a']))));
    expect(results.every((r) => r.kind === 'ok')).toBe(true);
    expect(maxOverlap(tasks.flatMap((t) => readEvents(t.events)))).toBe(2);
    expect(p.putsPerThread).toBe(2);
  });

  it('a put that honours context.abortSignal() is aborted in place: its thread and instance live on', async () => {
    const p = pool('waiting', 1, { abortGraceMs: 5_000 });
    const t = task({ 'wait.ms': '60000', 'honour.abort': 'true' });
    const controller = new AbortController();
    const put = p.put(t, records(['a']), { signal: controller.signal });
    await waitFor(() => began(t));
    controller.abort('lock about to expire');
    const result = await put;
    expect(result).toMatchObject({ kind: 'aborted', reason: 'lock about to expire' });
    expect(result.kind === 'aborted' && result.threadLost).toBeFalsy();
    expect(readEvents(t.events).map((e) => e.event)).toEqual(['start', 'begin', 'aborted']);
    const again = await p.put(t, records(['now']));
    expect(again).toMatchObject({ kind: 'ok', taskStarted: false, threadId: result.threadId });
  }, 30_000);

  it('a put that ignores its abort costs its thread; the puts beside it come back threadLost', async () => {
    const p = pool('waiting', 1, { abortGraceMs: 200 });
    const bystander = task({ 'wait.ms': '60000' });
    const victim = task();
    const standing = p.put(bystander, records(['a']));
    await waitFor(() => began(bystander));
    const controller = new AbortController();
    const hung = p.put(victim, records(['hang']), { signal: controller.signal });
    await waitFor(() => began(victim));
    controller.abort('put.timeout.ms');
    const [victimResult, bystanderResult] = await Promise.all([hung, standing]);
    expect(victimResult).toMatchObject({ kind: 'aborted', reason: 'put.timeout.ms' });
    expect(victimResult.kind === 'aborted' && victimResult.threadLost).toBeFalsy();
    expect(bystanderResult).toMatchObject({ kind: 'aborted', threadLost: true });
    // both instances died with the thread and start again on the replacement
    expect(await p.put(bystander, records(['now']))).toMatchObject({ kind: 'ok', taskStarted: true });
  }, 20_000);

  it('a thread that crashes under several puts releases them all; alone, the put is fatal', async () => {
    const p = pool('waiting', 1);
    const bystander = task({ 'wait.ms': '60000' });
    const standing = p.put(bystander, records(['a']));
    await waitFor(() => began(bystander));
    const crashed = await p.put(task(), records(['crash']));
    expect(crashed).toMatchObject({ kind: 'aborted', threadLost: true });
    expect(await standing).toMatchObject({ kind: 'aborted', threadLost: true });
    const alone = await p.put(task(), records(['crash']));
    expect(alone).toMatchObject({ kind: 'fatal', code: 'SHARESINK_WORKER_CRASHED' });
  }, 20_000);
});

describe('PutPool.started()', () => {
  it('resolves once every thread is ready', async () => {
    const p = pool('waiting', 2);
    await expect(p.started()).resolves.toBeUndefined();
  });

  it('rejects with SHARESINK_POOL_START_FAILED when the threads cannot boot, instead of queueing puts', async () => {
    const p = pool('waiting', 1, { execArgv: ['--import', 'no-such-package-sharesink-test'] });
    await expect(p.started(20_000)).rejects.toMatchObject({
      code: 'SHARESINK_POOL_START_FAILED',
      message: expect.stringContaining('no-such-package-sharesink-test'),
    });
  }, 30_000);
});
