/**
 * A task instance that takes several puts at once (`SinkTask.putsAtOnce()`, ADR 0020), hosted as a
 * pool thread hosts it: the puts overlap up to that many, start in the order they came, and a stop or
 * a new assignment waits for the running ones; reports and aborts reach the right put.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnectorModule } from '../../../src/connect/connector-module.js';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { PutRequests } from '../../../src/pool/put-request.js';
import type { PoolTask } from '../../../src/pool/put-runner.js';
import { connectorLoader, TaskHost } from '../../../src/pool/task-host.js';
import { readEvents, type FixtureEvent } from '../../fixtures/connectors/shared.js';
import { fixture, records } from './pool-harness.js';

const STRINGS = convertersFromProps({
  'key.converter': 'StringConverter',
  'value.converter': 'StringConverter',
});
let dir = '';
let seq = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sharesink-puts-at-once-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const JSON_VALUES = convertersFromProps({
  'key.converter': 'StringConverter',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
});

function setup(props: Record<string, string>) {
  const events = join(dir, `events-${++seq}.jsonl`);
  const host = new TaskHost(connectorLoader(resolveConnectorModule(fixture('waiting').href)));
  const requests = new PutRequests();
  let putId = 0;
  const task: PoolTask = { id: `t${seq}`, props: { 'events.file': events, ...props }, converters: STRINGS };
  const put = (batch: RawRecord[], over: Partial<PoolTask> = {}) => {
    const id = ++putId;
    return { id, result: host.put(requests.build({ ...task, ...over }, id, batch)) };
  };
  const seen = (): FixtureEvent[] => readEvents(events);
  const at = (event: string) =>
    seen()
      .filter((e) => e.event === event)
      .map((e) => e['at'] as number);
  return { host, task, put, seen, at };
}

describe('a task that takes several puts at once (putsAtOnce)', () => {
  it('overlaps up to putsAtOnce puts; the next one starts when one of them has ended', async () => {
    const { put, at, seen } = setup({ 'wait.ms': '250', 'puts.at.once': '2' });
    const results = await Promise.all([
      put(records(['a'], 0)).result,
      put(records(['b'], 1)).result,
      put(records(['c'], 2)).result,
    ]);
    expect(results.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok']);
    const [b1, b2, b3] = at('begin');
    const ends = at('end');
    // the first two ran side by side; the third began only once one of them had ended
    expect(b2!).toBeLessThan(Math.min(...ends));
    expect(b3!).toBeGreaterThanOrEqual(Math.min(ends[0]!, ends[1]!));
    expect(b1!).toBeLessThanOrEqual(b2!);
    expect(seen().filter((e) => e.event === 'start')).toHaveLength(1);
  });

  it('runs one put at a time when the task does not say otherwise (Connect)', async () => {
    const { put, at } = setup({ 'wait.ms': '120' });
    await Promise.all([put(records(['a'], 0)).result, put(records(['b'], 1)).result]);
    const begins = at('begin');
    const ends = at('end');
    expect(begins[1]!).toBeGreaterThanOrEqual(ends[0]!);
  });

  it('stops the instance only after both running puts ended', async () => {
    const { host, task, put, seen } = setup({ 'wait.ms': '200', 'puts.at.once': '2' });
    const a = put(records(['a'], 0)).result;
    const b = put(records(['b'], 1)).result;
    await new Promise((r) => setTimeout(r, 50));
    expect(await host.stop(task.id)).toBe(true);
    expect((await a).kind).toBe('ok');
    expect((await b).kind).toBe('ok');
    expect(seen().map((e) => e.event)).toEqual(['start', 'begin', 'begin', 'end', 'end', 'stop']);
  });

  it('aborts only the put it is sent for; the other running one ends normally', async () => {
    const { host, put } = setup({ 'wait.ms': '400', 'puts.at.once': '2', 'honour.abort': 'true' });
    const first = put(records(['a'], 0));
    const second = put(records(['b'], 1));
    await new Promise((r) => setTimeout(r, 60));
    host.abort(first.id, 'lock about to expire');
    const [r1, r2] = await Promise.all([first.result, second.result]);
    expect(r1.kind).toBe('fatal');
    expect(r2.kind).toBe('ok');
  });

  it('a put aborted while it waited for its turn to apply an assignment starts with its signal fired', async () => {
    const { host, put, seen } = setup({ 'wait.ms': '300', 'puts.at.once': '2', 'honour.abort': 'true' });
    const first = { version: 1, partitions: [{ topic: 'orders', partition: 2 }] };
    const second = { version: 2, partitions: [{ topic: 'orders', partition: 3 }] };
    const a = put(records(['a'], 0), { assignment: first });
    const b = put(records(['b'], 1), { assignment: second });
    await new Promise((r) => setTimeout(r, 60));
    host.abort(b.id, 'task stopping');
    expect((await a.result).kind).toBe('ok');
    expect((await b.result).kind).toBe('fatal');
    expect(seen().filter((e) => e.event === 'aborted')).toHaveLength(1);
    expect(seen().filter((e) => e.event === 'end')).toHaveLength(1);
  });

  it('reports an errant record against its own put, not the one running beside it', async () => {
    const { put } = setup({ 'wait.ms': '150', 'puts.at.once': '2' });
    const first = put(records(['a', 'b'], 0)).result;
    const second = put(records(['c', 'bad', 'd'], 10)).result;
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1.kind).toBe('ok');
    expect(r2).toMatchObject({ kind: 'perRecord', rejected: [{ index: 1, message: 'bad record' }] });
  });

  it('finds the reported record by its batch index when a converter left an earlier record out', async () => {
    const { put } = setup({ 'wait.ms': '150', 'puts.at.once': '2' });
    const a = put(records(['"a"', '"b"'], 0), { converters: JSON_VALUES }).result;
    // index 0 fails to convert, so "bad" (batch index 2) is the second record put() gets
    const b = put(records(['{not json', '"c"', '"bad"'], 10), { converters: JSON_VALUES }).result;
    const [r1, r2] = await Promise.all([a, b]);
    expect(r1.kind).toBe('ok');
    expect(r2).toMatchObject({ kind: 'perRecord', rejected: [{ index: 2, message: 'bad record' }] });
    expect(r2.converterFailures.map((f) => f.index)).toEqual([0]);
  });

  it('abandon() lets go of an instance whose put is still converting or applying an assignment', async () => {
    const { host, task, put } = setup({ 'wait.ms': '300', 'puts.at.once': '2' });
    const first = { version: 1, partitions: [{ topic: 'orders', partition: 2 }] };
    const a = put(records(['a'], 0), { assignment: first });
    const b = put(records(['b'], 1), { assignment: { version: 2, partitions: [] } });
    await new Promise((r) => setTimeout(r, 60));
    // b waits for a to end before close(): it is in its turn, not yet in put()
    expect(host.abandon(task.id, b.id)).toBe(true);
    expect(host.abandon(task.id, 999)).toBe(false);
    await Promise.all([a.result, b.result]);
  });

  it('applies a new assignment only between puts: close() and open() wait for the running ones', async () => {
    const { put, seen } = setup({ 'wait.ms': '150', 'puts.at.once': '2' });
    const first = { version: 1, partitions: [{ topic: 'orders', partition: 2 }] };
    const second = { version: 2, partitions: [{ topic: 'orders', partition: 3 }] };
    const a = put(records(['a'], 0), { assignment: first }).result;
    const b = put(records(['b'], 1), { assignment: first }).result;
    const c = put(records(['c'], 2), { assignment: second }).result;
    expect((await Promise.all([a, b, c])).map((r) => r.kind)).toEqual(['ok', 'ok', 'ok']);
    const order = seen()
      .map((e) => e.event)
      .filter((e) => e !== 'start');
    expect(order).toEqual(['open', 'begin', 'begin', 'end', 'end', 'close', 'open', 'begin', 'end']);
  });
});
