import { describe, expect, it } from 'vitest';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { readEvents } from '../../fixtures/connectors/shared.js';
import { records, usePools, waitFor } from './pool-harness.js';

const { pool, task } = usePools();

describe('PutPool with real worker threads', () => {
  it('starts the task on first use, converts in the worker and puts then flushes the batch', async () => {
    const p = pool('ok');
    const t = task();
    const first = await p.put(t, records(['a', 'b', null], 40, { deliveryCount: 3 }));
    expect(first).toMatchObject({ kind: 'ok', taskStarted: true, converterFailures: [] });
    expect(first.threadId).toBeGreaterThan(0);
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    const second = await p.put(t, records(['c'], 43));
    expect(second).toMatchObject({ kind: 'ok', taskStarted: false });

    const events = readEvents(t.events);
    expect(events.map((e) => e.event)).toEqual(['start', 'put', 'flush', 'put', 'flush']);
    expect(events[1]!['records']).toEqual([
      {
        topic: 'orders',
        partition: 2,
        offset: 40,
        timestamp: 1_700_000_000_000,
        key: 'k40',
        value: 'a',
        headers: [['trace', 'h0']],
        deliveryCount: 3,
      },
      {
        topic: 'orders',
        partition: 2,
        offset: 41,
        timestamp: 1_700_000_000_001,
        key: 'k41',
        value: 'b',
        headers: [['trace', 'h1']],
        deliveryCount: 3,
      },
      {
        topic: 'orders',
        partition: 2,
        offset: 42,
        timestamp: 1_700_000_000_002,
        key: 'k42',
        value: null,
        headers: [['trace', 'h2']],
        deliveryCount: 3,
      },
    ]);
    expect(events[2]!['offsets']).toEqual([{ topic: 'orders', partition: 2, offset: 43 }]);
  });

  it('leaves records that fail conversion out of put() and reports each with its coordinates', async () => {
    const p = pool('ok');
    const t = task(
      {},
      {
        converters: convertersFromProps({
          'value.converter': 'JsonConverter',
          'value.converter.schemas.enable': 'false',
          'key.converter': 'StringConverter',
        }),
      },
    );
    const result = await p.put(t, records(['{"n":1}', '{not json', '[2]'], 7));
    expect(result.kind).toBe('ok');
    expect(result.converterFailures).toEqual([
      {
        index: 1,
        code: 'SHARESINK_CONVERTER_FAILED',
        part: 'value',
        converter: 'JsonConverter',
        message: expect.stringContaining('orders-2@8') as unknown,
      },
    ]);
    const put = readEvents(t.events).find((e) => e.event === 'put')!;
    expect((put['records'] as { value: unknown }[]).map((r) => r.value)).toEqual([{ n: 1 }, [2]]);
  });

  it('returns retriable with the task-requested backoff, twice, then ok', async () => {
    const p = pool('retriable');
    const t = task();
    const batch = records(['x']);
    const results = [await p.put(t, batch), await p.put(t, batch), await p.put(t, batch)];
    expect(results.map((r) => r.kind)).toEqual(['retriable', 'retriable', 'ok']);
    expect(results[0]).toMatchObject({
      message: 'downstream busy (attempt 1)',
      backoffMs: 250,
      code: 'SHARESINK_RETRIABLE',
    });
  });

  it('returns fatal with message, code and stack when put() throws', async () => {
    const p = pool('fatal');
    const result = await p.put(task(), records(['x', 'y']));
    expect(result).toMatchObject({
      kind: 'fatal',
      message: 'schema mismatch in 2 records',
      code: 'SHARESINK_CONNECT_ERROR',
    });
    expect(result.kind === 'fatal' && result.stack).toContain('FatalTask.put');
  });

  it('an unclassified network failure (fetch failed: ECONNREFUSED) is retriable, saying why; a ConnectError or a bug stays fatal', async () => {
    const p = pool('fatal');
    const fetchFailed = await p.put(task({ 'put.throws': 'fetch-failed' }), records(['x']));
    expect(fetchFailed).toMatchObject({
      kind: 'retriable',
      message:
        'fetch failed: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED: a transient failure, retried; throw ConnectError to reject instead)',
    });
    const chosen = await p.put(task({ 'put.throws': 'connect-error-econnrefused' }), records(['x']));
    expect(chosen).toMatchObject({ kind: 'fatal', message: 'endpoint gone for good' });
    const bug = await p.put(task({ 'put.throws': 'bug' }), records(['x']));
    expect(bug).toMatchObject({
      kind: 'fatal',
      message: "Cannot read properties of undefined (reading 'id')",
    });
  });

  it('returns fatal when start() fails, stops that instance, and tries start() again on the next put', async () => {
    const p = pool('fatal');
    const t = task({ 'fail.start': 'true' });
    const first = await p.put(t, records(['x']));
    expect(first).toMatchObject({ kind: 'fatal', message: 'cannot reach downstream', taskStarted: true });
    await p.put(t, records(['x']));
    expect(readEvents(t.events).map((e) => e.event)).toEqual(['start', 'stop', 'start', 'stop']);
  });

  it('turns errant record reports into per-record rejections by batch index', async () => {
    const p = pool('errant');
    const result = await p.put(
      task(),
      records(
        Array.from({ length: 25 }, (_, i) => `v${i}`),
        100,
      ),
    );
    expect(result).toMatchObject({
      kind: 'perRecord',
      rejected: [
        { index: 0, message: 'offset 100 is poison' },
        { index: 10, message: 'offset 110 is poison' },
        { index: 20, message: 'offset 120 is poison' },
      ],
    });
  });

  it('aborting a hung put terminates its thread; the next put re-creates and restarts the task', async () => {
    const p = pool('hung');
    const t = task();
    const controller = new AbortController();
    const hung = p.put(t, records(['hang']), { signal: controller.signal });
    await waitFor(() => readEvents(t.events).some((e) => e.event === 'put'));
    controller.abort('lock about to expire');
    expect(await hung).toMatchObject({ kind: 'aborted', reason: 'lock about to expire', threadId: -1 });
    const again = await p.put(t, records(['fine']));
    expect(again).toMatchObject({ kind: 'ok', taskStarted: true });
    const events = readEvents(t.events);
    expect(events.map((e) => e.event)).toEqual(['start', 'put', 'start', 'put']);
    expect(events[2]!.thread).not.toBe(events[0]!.thread);
  }, 20_000);

  it('aborting costs every task instance on that thread, and each is re-created on its next put', async () => {
    const p = pool('hung');
    const bystander = task();
    const victim = task();
    expect(await p.put(bystander, records(['fine']))).toMatchObject({ kind: 'ok', taskStarted: true });
    const controller = new AbortController();
    const hung = p.put(victim, records(['hang']), { signal: controller.signal });
    await waitFor(() => readEvents(victim.events).some((e) => e.event === 'put'));
    controller.abort();
    expect((await hung).kind).toBe('aborted');
    expect(await p.put(bystander, records(['fine']))).toMatchObject({ kind: 'ok', taskStarted: true });
    expect(readEvents(bystander.events).map((e) => e.event)).toEqual(['start', 'put', 'start', 'put']);
    expect(await p.stopTask(victim.id)).toEqual({ stopped: 0, failed: [], timedOut: [] });
  }, 20_000);

  it('an already aborted signal never reaches a thread', async () => {
    const p = pool('ok');
    const t = task();
    const result = await p.put(t, records(['x']), { signal: AbortSignal.abort('shutdown') });
    expect(result).toMatchObject({ kind: 'aborted', reason: 'shutdown' });
    expect(readEvents(t.events)).toEqual([]);
  });

  it('opens the assignment after start and applies changes as close(revoked) then open(assigned)', async () => {
    const p = pool('ok');
    const base = task();
    const tp = (partition: number) => ({ topic: 'orders', partition });
    await p.put({ ...base, assignment: { version: 1, partitions: [tp(0), tp(1)] } }, records(['a']));
    await p.put({ ...base, assignment: { version: 2, partitions: [tp(1), tp(2)] } }, records(['b']));
    const events = readEvents(base.events).filter(
      (e) => e.event === 'open' || e.event === 'close' || e.event === 'start',
    );
    expect(events.map((e) => [e.event, e['partitions']])).toEqual([
      ['start', undefined],
      ['open', [tp(0), tp(1)]],
      ['close', [tp(0)]],
      ['open', [tp(2)]],
    ]);
  });

  it('re-creates the instance when the task config changes', async () => {
    const p = pool('ok');
    const t = task();
    await p.put(t, records(['a']));
    const changed = await p.put({ ...t, props: { ...t.props, 'delay.ms': '1' } }, records(['b']));
    expect(changed.taskStarted).toBe(true);
    expect(readEvents(t.events).map((e) => e.event)).toEqual([
      'start',
      'put',
      'flush',
      'stop',
      'start',
      'put',
      'flush',
    ]);
  });

  it('runs one task on several threads in parallel and stopTask stops every instance', async () => {
    const p = pool('ok', 2);
    const t = task(
      { 'delay.ms': '200' },
      { assignment: { version: 1, partitions: [{ topic: 'orders', partition: -1 }] } },
    );
    const results = await Promise.all([p.put(t, records(['a'])), p.put(t, records(['b']))]);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(2);
    const stop = await p.stopTask(t.id);
    expect(stop).toEqual({ stopped: 2, failed: [], timedOut: [] });
    const events = readEvents(t.events);
    expect(events.filter((e) => e.event === 'stop')).toHaveLength(2);
    expect(events.filter((e) => e.event === 'close')).toHaveLength(2);
    expect(await p.stopTask(t.id)).toEqual({ stopped: 0, failed: [], timedOut: [] });
  });

  it('stopTask waits for a running put on the instance before stopping it', async () => {
    const p = pool('ok');
    const t = task({ 'delay.ms': '300' });
    await p.put(t, records(['warm']));
    const running = p.put(t, records(['slow']));
    await new Promise((r) => setTimeout(r, 50));
    await p.stopTask(t.id);
    expect((await running).kind).toBe('ok');
    expect(
      readEvents(t.events)
        .map((e) => e.event)
        .slice(-3),
    ).toEqual(['put', 'flush', 'stop']);
  });

  it('close() stops every task it served', async () => {
    const p = pool('ok');
    const a = task();
    const b = task();
    await p.put(a, records(['a']));
    await p.put(b, records(['b']));
    await p.close();
    expect(readEvents(a.events).at(-1)?.event).toBe('stop');
    expect(readEvents(b.events).at(-1)?.event).toBe('stop');
  });

  it('a module without the connector shape: the start fails, and a put is given back, not a crash', async () => {
    // the threads' start names the module (the connector fails with it); the put waiting for the
    // threads comes back aborted, so its records are released rather than rejected for a code error
    const p = pool('not-a-connector');
    const result = await p.put(task(), records(['x']));
    expect(result).toMatchObject({
      kind: 'aborted',
      reason: expect.stringContaining('cannot load the connector module') as unknown,
    });
    await expect(p.started()).rejects.toMatchObject({ code: 'SHARESINK_CONNECTOR_MODULE_INVALID' });
  });

  it('bad converter settings give a fatal config result', async () => {
    const p = pool('ok');
    const t = task(
      {},
      {
        converters: convertersFromProps({
          'value.converter': 'JsonConverter',
          'value.converter.schemas.enable': 'maybe',
        }),
      },
    );
    const result = await p.put(t, records(['x']));
    expect(result).toMatchObject({ kind: 'fatal', code: 'SHARESINK_CONFIG_INVALID' });
    expect(result.kind === 'fatal' && result.message).toContain(
      'value.converter.schemas.enable: "maybe" is not true or false',
    );
  });
});
