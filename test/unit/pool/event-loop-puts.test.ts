import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConnectorModule } from '../../../src/connect/connector-module.js';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { EventLoopPuts } from '../../../src/pool/event-loop-puts.js';
import type { PoolTask } from '../../../src/pool/put-pool.js';
import { capturingLogger } from '../cli/capturing-logger.js';
import { readEvents } from '../../fixtures/connectors/shared.js';
import { fixture, records, waitFor } from './pool-harness.js';

const STRINGS = convertersFromProps({
  'key.converter': 'StringConverter',
  'value.converter': 'StringConverter',
});
let dir = '';
let seq = 0;
const runners: EventLoopPuts[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sharesink-event-loop-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
});

function runner(name: string, options: { abortGraceMs?: number; stopTimeoutMs?: number } = {}) {
  const log = capturingLogger();
  const r = new EventLoopPuts({ connectorModule: fixture(name), logger: log.logger, ...options });
  runners.push(r);
  return { r, log };
}

function task(extra: Record<string, string> = {}): PoolTask & { events: string } {
  const events = join(dir, `events-${++seq}.jsonl`);
  return { id: `t${seq}`, props: { 'events.file': events, ...extra }, converters: STRINGS, events };
}

describe('EventLoopPuts (put.placement=event-loop)', () => {
  it('runs the put on the main thread, from the records as they are, and leaves them unchanged', async () => {
    const { r } = runner('ok');
    expect(r.threads).toBe(0);
    await r.started();
    const t = task();
    const batch = records(['a', null], 40, { deliveryCount: 2 });
    const before = JSON.stringify(batch);
    const first = await r.put(t, batch);
    expect(first).toMatchObject({ kind: 'ok', taskStarted: true, threadId: 0, converterFailures: [] });
    expect(await r.put(t, records(['b'], 42))).toMatchObject({ kind: 'ok', taskStarted: false });
    expect(JSON.stringify(batch)).toBe(before);
    const events = readEvents(t.events);
    expect(events.map((e) => e.event)).toEqual(['start', 'put', 'flush', 'put', 'flush']);
    expect(events.every((e) => e.thread === 0)).toBe(true);
    expect(
      (events[1]!['records'] as { value: unknown; deliveryCount: number }[]).map((x) => x.value),
    ).toEqual(['a', null]);
    expect(events[2]!['offsets']).toEqual([{ topic: 'orders', partition: 2, offset: 42 }]);
  });

  it('runs two puts of one task at once on two instances, as two pool threads would; stopTask stops both', async () => {
    const { r } = runner('waiting');
    const t = task({ 'wait.ms': '300' });
    const results = await Promise.all([r.put(t, records(['a'])), r.put(t, records(['b']))]);
    expect(results.map((x) => x.kind)).toEqual(['ok', 'ok']);
    const events = readEvents(t.events);
    const begins = events.filter((e) => e.event === 'begin').map((e) => e['at'] as number);
    const ends = events.filter((e) => e.event === 'end').map((e) => e['at'] as number);
    expect(events.filter((e) => e.event === 'start')).toHaveLength(2);
    // both began before either ended: they overlapped
    expect(Math.max(...begins)).toBeLessThan(Math.min(...ends));
    // a third put reuses an idle instance rather than starting another
    expect(await r.put(t, records(['now']))).toMatchObject({ kind: 'ok', taskStarted: false });
    expect(await r.stopTask(t.id)).toEqual({ stopped: 2, failed: [], timedOut: [] });
  });

  it('gives the same retriable and fatal results as the pool', async () => {
    const retriable = runner('retriable').r;
    const t = task();
    expect(await retriable.put(t, records(['x']))).toMatchObject({
      kind: 'retriable',
      backoffMs: 250,
      code: 'SHARESINK_RETRIABLE',
    });
    const fatal = runner('fatal').r;
    const result = await fatal.put(task(), records(['x', 'y']));
    expect(result).toMatchObject({ kind: 'fatal', code: 'SHARESINK_CONNECT_ERROR' });
    expect(result.kind === 'fatal' && result.stack).toContain('FatalTask.put');
  });

  it('an aborted put that honours its signal ends at once as aborted', async () => {
    const { r } = runner('waiting');
    const t = task({ 'wait.ms': '10000', 'honour.abort': 'true' });
    const controller = new AbortController();
    const began = Date.now();
    const put = r.put(t, records(['slow']), { signal: controller.signal });
    await waitFor(() => readEvents(t.events).some((e) => e.event === 'begin'));
    controller.abort('lock about to expire');
    expect(await put).toMatchObject({ kind: 'aborted', reason: 'lock about to expire', threadId: 0 });
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it('a put that ignores its abort is given up after the grace, said once; its task gets a new instance, other tasks go on', async () => {
    const { r, log } = runner('waiting', { abortGraceMs: 100, stopTimeoutMs: 200 });
    const stuck = task();
    const controller = new AbortController();
    const put = r.put(stuck, records(['hang']), { signal: controller.signal });
    await waitFor(() => readEvents(stuck.events).some((e) => e.event === 'begin'));
    controller.abort('shutdown');
    expect(await put).toMatchObject({ kind: 'aborted', reason: 'shutdown' });
    expect(log.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringContaining(
        'put.placement=event-loop cannot stop it, so it runs on while its records are released or retried, and the task gets a new instance',
      ),
    ]);
    expect(await r.put(task(), records(['now']))).toMatchObject({ kind: 'ok' });
    // the stuck instance is abandoned: the task's next put starts a new one instead of queueing behind it
    expect(await r.put(stuck, records(['now']))).toMatchObject({ kind: 'ok', taskStarted: true });
    expect(readEvents(stuck.events).map((e) => e.event)).toEqual(['start', 'begin', 'start', 'begin', 'end']);
    expect(await r.stopTask(stuck.id)).toEqual({ stopped: 1, failed: [], timedOut: [] });
  });

  it('an already aborted signal never reaches the task', async () => {
    const { r } = runner('ok');
    const t = task();
    expect(await r.put(t, records(['x']), { signal: AbortSignal.abort('shutdown') })).toMatchObject({
      kind: 'aborted',
      reason: 'shutdown',
    });
    expect(readEvents(t.events)).toEqual([]);
  });

  it('stopTask waits for the running put; close() stops every task it served', async () => {
    const { r } = runner('ok');
    const a = task({ 'delay.ms': '200' });
    const b = task();
    await r.put(a, records(['warm']));
    await r.put(b, records(['b']));
    const running = r.put(a, records(['slow']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await r.stopTask(a.id)).toEqual({ stopped: 1, failed: [], timedOut: [] });
    expect((await running).kind).toBe('ok');
    expect(
      readEvents(a.events)
        .map((e) => e.event)
        .slice(-3),
    ).toEqual(['put', 'flush', 'stop']);
    await r.close();
    expect(readEvents(b.events).at(-1)?.event).toBe('stop');
  });

  it('started() loads the connector module: one that cannot be loaded fails the start, as with the pool', async () => {
    await expect(runner('not-a-connector').r.started()).rejects.toMatchObject({
      code: 'SHARESINK_CONNECTOR_MODULE_INVALID',
      message: expect.stringContaining('not-a-connector.ts must have a default export') as unknown,
    });
  });

  it('loads the module once, for started() and every instance it hosts', async () => {
    const { looksSoFar } = (await import(fixture('counted-loads').href)) as { looksSoFar: () => number };
    const before = looksSoFar();
    await loadConnectorModule(fixture('counted-loads').href);
    const oneLoad = looksSoFar() - before;
    expect(oneLoad).toBeGreaterThan(0);

    const { r } = runner('counted-loads');
    await r.started();
    const t = task({ 'delay.ms': '200' });
    // two puts at once: two instances, as the pool's two threads would have
    const results = await Promise.all([r.put(t, records(['a'])), r.put(t, records(['b']))]);
    expect(results.map((x) => x.taskStarted)).toEqual([true, true]);
    const looks = readEvents(t.events)
      .filter((e) => e.event === 'looks')
      .map((e) => e['looks']);
    expect(looks).toEqual([before + 2 * oneLoad, before + 2 * oneLoad]);
  });
});
