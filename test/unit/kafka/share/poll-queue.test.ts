import { describe, expect, it } from 'vitest';
import { PollQueue } from '../../../../src/kafka/share/poll-queue.js';
import type { ShareRecord } from '../../../../src/kafka/share/share-record.js';

const recs = (from: number, n: number): ShareRecord[] =>
  Array.from({ length: n }, (_, i) => ({ topic: 't', partition: 0, offset: from + i }) as ShareRecord);
const offsets = (r: readonly ShareRecord[]) => r.map((x) => x.offset);

describe('PollQueue', () => {
  it('hands an answer to the poll that waited longest, in equal pieces of about one poll each', async () => {
    const q = new PollQueue(3);
    const first = q.take(1000) as Promise<ShareRecord[]>;
    const second = q.take(1000) as Promise<ShareRecord[]>;
    expect(q.waiting).toBe(2);
    q.deliver(recs(0, 9), 1234);
    expect(offsets(await first)).toEqual([0, 1, 2]);
    expect(offsets(await second)).toEqual([3, 4, 5]);
    // the rest waits for the next poll, which gets it at once
    const third = q.take(1000);
    expect(Array.isArray(third)).toBe(true);
    expect(offsets(third as ShareRecord[])).toEqual([6, 7, 8]);
    expect(q.waiting).toBe(0);
  });

  it('keeps a one-poll answer whole although it is a little over (MaxRecords is a soft limit)', () => {
    const q = new PollQueue(500);
    q.deliver(recs(0, 591), 1);
    expect((q.take(1000) as ShareRecord[]).length).toBe(591);
    q.deliver(recs(0, 800), 1);
    expect([(q.take(1000) as ShareRecord[]).length, (q.take(1000) as ShareRecord[]).length]).toEqual([
      400, 400,
    ]);
  });

  it('remembers when the fetch of each piece was sent, also for a piece that waited', async () => {
    const q = new PollQueue(2);
    q.deliver(recs(0, 4), 1000);
    q.deliver(recs(4, 2), 2000);
    const a = q.take(1000) as ShareRecord[];
    const b = q.take(1000) as ShareRecord[];
    const c = q.take(1000) as ShareRecord[];
    expect([a, b, c].map((r) => q.acquiredAt(r))).toEqual([1000, 1000, 2000]);
    expect(q.acquiredAt(recs(0, 1))).toBeUndefined();
  });

  it('a poll nobody answers returns [] after its wait; close ends waiting polls with [] and drops pieces', async () => {
    const q = new PollQueue(2);
    await expect(q.take(5)).resolves.toEqual([]);
    expect(q.waiting).toBe(0);
    const waiting = q.take(60_000);
    q.close();
    await expect(waiting).resolves.toEqual([]);
    q.deliver(recs(0, 1), 1);
    const p = q.take(60_000);
    expect(Array.isArray(p)).toBe(true);
    q.close();
    // nothing was left in the queue after close
    await expect(q.take(5)).resolves.toEqual([]);
  });

  it('fail rejects every waiting poll', async () => {
    const q = new PollQueue(2);
    const a = q.take(60_000);
    q.fail(new Error('GROUP_AUTHORIZATION_FAILED'));
    await expect(a).rejects.toThrow('GROUP_AUTHORIZATION_FAILED');
  });

  it('held, it wants no fetch for waiting polls and gives every answer and every waiting piece to release', async () => {
    const q = new PollQueue(2);
    const released: number[][] = [];
    q.deliver(recs(0, 4), 1);
    const waiting = q.take(40);
    expect(Array.isArray(waiting)).toBe(true);
    const poll = q.take(60_000) as ShareRecord[];
    expect(offsets(poll)).toEqual([2, 3]);
    q.deliver(recs(4, 2), 2);
    const late = q.take(30);
    expect(q.wanting).toBe(false);
    const pending = q.take(30) as Promise<ShareRecord[]>;
    expect(q.wanting).toBe(true);
    q.hold((r) => released.push(offsets(r)));
    expect(q.wanting).toBe(false);
    // a fetch that was under way when the hold came
    q.deliver(recs(6, 3), 3);
    expect(released).toEqual([[6, 7, 8]]);
    // the poll still waiting ends empty at its wait, as before
    await expect(pending).resolves.toEqual([]);
    expect(offsets(late as ShareRecord[])).toEqual([4, 5]);
    q.deliver(recs(9, 2), 4);
    q.hold(undefined);
    // the piece that waited for a poll when the hold came is released too
    q.hold((r) => released.push(offsets(r)));
    expect(released).toEqual([
      [6, 7, 8],
      [9, 10],
    ]);
    q.hold(undefined);
    const next = q.take(1000) as Promise<ShareRecord[]>;
    expect(q.wanting).toBe(true);
    q.deliver(recs(11, 1), 5);
    expect(offsets(await next)).toEqual([11]);
  });
});
