// GET /machines/events as a client sees it: what is written to each stream, and when.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TransitionCount } from '../../../../src/observability/transition-counter.js';
import { MachineEvents, type MachinesUpdate } from '../../../../src/rest/live-view/machine-events.js';
import type { RestWorker } from '../../../../src/rest/worker-view.js';

/** A response that records what is written; `needDrain` plays a client that stopped reading. */
class FakeStream extends EventEmitter {
  chunks: string[] = [];
  ended = false;
  needDrain = false;
  get writableNeedDrain() {
    return this.needDrain;
  }
  writeHead() {
    return this;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    return !this.needDrain;
  }
  end(chunk?: string) {
    if (chunk !== undefined) this.chunks.push(chunk);
    this.ended = true;
  }
  updates(): MachinesUpdate[] {
    return this.chunks
      .filter((c) => c.startsWith('event: machines'))
      .map((c) => JSON.parse(/data: (.*)\n/.exec(c)![1]!) as MachinesUpdate);
  }
  /** The client goes away. */
  hangUp() {
    this.emit('close');
  }
}

/** A worker with no connectors whose batch transition count the test moves. */
function worker() {
  let count = 0;
  const w: RestWorker & { bump(n: number): void } = {
    config: { bootstrapServers: ['127.0.0.1:9092'], clientId: 'test' },
    connectors: [],
    connector: () => undefined,
    transitionCounter: {
      counts: (): TransitionCount[] => [{ machine: 'batch', from: 'acquired', to: 'putting', count }],
    },
    actorCensus: { counts: () => ({}) },
    isStopping: false,
    bump: (n) => void (count += n),
  };
  return w;
}

const attach = (events: MachineEvents) => {
  const res = new FakeStream();
  events.attach(res as unknown as ServerResponse);
  return res;
};

describe('MachineEvents', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the current state at once and then only what changed: no second copy of the first update', () => {
    const w = worker();
    const events = new MachineEvents(w, 250);
    const res = attach(events);
    vi.advanceTimersByTime(1000);
    expect(res.updates()).toHaveLength(1);
    w.bump(5);
    vi.advanceTimersByTime(250);
    expect(res.updates()).toHaveLength(2);
    events.close();
  });

  it('a client that opens the page after a pause sees no rate for transitions made while nobody watched', () => {
    const w = worker();
    const events = new MachineEvents(w, 250);
    const first = attach(events);
    for (let i = 0; i < 8; i++) {
      w.bump(10);
      vi.advanceTimersByTime(250);
    }
    expect(first.updates().at(-1)!.rates).toEqual([
      { machine: 'batch', from: 'acquired', to: 'putting', perSecond: 40 },
    ]);
    first.hangUp();
    expect(vi.getTimerCount()).toBe(0);
    // records flow for a while with the page closed, then stop
    vi.advanceTimersByTime(5000);
    w.bump(200);
    vi.advanceTimersByTime(5000);
    const second = attach(events);
    vi.advanceTimersByTime(1500);
    // nothing moves now: no edge may be drawn as busy
    expect(second.updates().flatMap((u) => u.rates)).toEqual([]);
    events.close();
  });

  it('writes nothing more to a client that stopped reading, and the latest state once it reads again', () => {
    const w = worker();
    const events = new MachineEvents(w, 250);
    const slow = attach(events);
    const fast = attach(events);
    slow.needDrain = true;
    for (let i = 0; i < 40; i++) {
      w.bump(1);
      vi.advanceTimersByTime(250);
    }
    expect(slow.chunks.length).toBeLessThanOrEqual(2); // `retry:` and the first update
    expect(fast.updates().length).toBeGreaterThan(30);
    slow.needDrain = false;
    vi.advanceTimersByTime(250);
    expect(slow.updates().at(-1)!.totals).toEqual(fast.updates().at(-1)!.totals);
    // once the rates have died down it stays quiet while nothing changes, as for every client
    vi.advanceTimersByTime(2000);
    const written = slow.chunks.length;
    vi.advanceTimersByTime(1000);
    expect(slow.chunks.length).toBe(written);
    events.close();
  });

  it('stops its timer when the last client leaves and starts none once closed', () => {
    const events = new MachineEvents(worker(), 250);
    const a = attach(events);
    const b = attach(events);
    expect(vi.getTimerCount()).toBe(1);
    a.hangUp();
    expect(vi.getTimerCount()).toBe(1);
    b.hangUp();
    expect(vi.getTimerCount()).toBe(0);
    const open = attach(events);
    events.close();
    expect(open.ended).toBe(true);
    // a stream asked for while the server closes (a page reconnecting) would hold the close up for good
    const late = attach(events);
    expect(late.ended).toBe(true);
    expect(late.chunks.join('')).toContain('retry: 2000');
    expect(vi.getTimerCount()).toBe(0);
  });
});
