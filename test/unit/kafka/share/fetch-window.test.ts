import { describe, expect, it } from 'vitest';
import { FetchWindow } from '../../../../src/kafka/share/fetch-window.js';
import { PollQueue } from '../../../../src/kafka/share/poll-queue.js';
import type { ShareRecord } from '../../../../src/kafka/share/share-record.js';

const LOCK = 30_000;
const MIB = 1_048_576;

/** A window whose polls took pieces every `everyMs` ms, `times` times. */
function after(everyMs: number, times: number, o = { maxRecords: 500, maxPolls: 4 }): FetchWindow {
  const w = new FetchWindow({
    perPoll: 500,
    maxRecords: o.maxRecords,
    maxBytes: MIB * (o.maxRecords / 500),
    maxPolls: o.maxPolls,
  });
  for (let i = 0; i < times; i++) w.handedOut(1_000 + i * everyMs);
  return w;
}

describe('FetchWindow', () => {
  it('asks for the configured floor until it has seen polls take pieces, and while the lock is unknown', () => {
    expect(after(5, 0).ask(LOCK)).toEqual({ maxRecords: 500, maxBytes: MIB });
    expect(after(5, 1).ask(LOCK)).toEqual({ maxRecords: 500, maxBytes: MIB });
    expect(after(5, 10).ask(0)).toEqual({ maxRecords: 500, maxBytes: MIB });
  });

  it('grows to its ceiling, MaxBytes with it, while polls take pieces far faster than a tenth of the lock', () => {
    expect(after(5, 10).ask(LOCK)).toEqual({ maxRecords: 2000, maxBytes: 4 * MIB });
  });

  it('sizes the window so the last piece waits under a tenth of the lock: k−1 intervals between polls', () => {
    // 3,000 ms of the 30 s lock: 1 + floor(3000 / 1400) = 3 polls' worth
    expect(after(1_400, 10).polls(LOCK)).toBe(3);
    expect(after(2_000, 10).polls(LOCK)).toBe(2);
    // a sink whose puts take seconds keeps the floor: one poll's worth, as before
    expect(after(3_500, 10).polls(LOCK)).toBe(1);
    // a shorter lock shrinks it: 1 s lock, 100 ms budget, polls every 40 ms
    expect(after(40, 10).polls(1_000)).toBe(3);
  });

  it('shrinks at once when polls slow down, and grows back only as fast polls pull the average down', () => {
    const w = after(5, 10);
    expect(w.polls(LOCK)).toBe(4);
    w.handedOut(1_045 + 5_000);
    expect(w.polls(LOCK)).toBe(1);
    let now = 6_045;
    const fast = (n: number) => {
      for (let i = 0; i < n; i++) w.handedOut((now += 5));
    };
    fast(2);
    expect(w.polls(LOCK)).toBe(1);
    fast(20);
    expect(w.polls(LOCK)).toBe(4);
  });

  it("never asks for less than a shared member's floor (its tasks' polls), nor grows past its ceiling", () => {
    expect(after(5_000, 10, { maxRecords: 3_000, maxPolls: 6 }).ask(LOCK)).toEqual({
      maxRecords: 3_000,
      maxBytes: 6 * MIB,
    });
    expect(after(1, 10, { maxRecords: 3_000, maxPolls: 6 }).polls(LOCK)).toBe(6);
    expect(after(1, 10, { maxRecords: 500, maxPolls: 1 }).polls(LOCK)).toBe(1);
  });
});

describe('FetchWindow samples', () => {
  it('takes polls served in the same millisecond (one answer, several waiting polls) for no sample', () => {
    const w = new FetchWindow({ perPoll: 500, maxRecords: 500, maxBytes: MIB, maxPolls: 4 });
    for (let i = 0; i < 6; i++) w.handedOut(1_000);
    expect(w.polls(LOCK)).toBe(1);
    w.handedOut(900); // a clock stepped back
    expect(w.polls(LOCK)).toBe(1);
  });

  it('grows MaxBytes by the factor MaxRecords grows, also from a floor under one poll', () => {
    const w = new FetchWindow({ perPoll: 500, maxRecords: 100, maxBytes: MIB, maxPolls: 4 });
    for (let i = 0; i < 10; i++) w.handedOut(1_000 + i * 5);
    expect(w.ask(LOCK)).toEqual({ maxRecords: 2_000, maxBytes: 20 * MIB });
  });
});

describe('PollQueue hand-outs', () => {
  it('tells its listener of every piece a poll gets, waiting or not', async () => {
    const seen: number[] = [];
    const q = new PollQueue(2, (now) => seen.push(now));
    const waiting = q.take(1000) as Promise<ShareRecord[]>;
    q.deliver(
      Array.from({ length: 6 }, (_, i) => ({ offset: i }) as ShareRecord),
      1,
    );
    await waiting;
    expect(seen).toHaveLength(1);
    q.take(1000);
    q.take(1000);
    expect(seen).toHaveLength(3);
    // nothing ready: a poll that waits is no hand-out
    void q.take(10);
    expect(seen).toHaveLength(3);
  });
});
