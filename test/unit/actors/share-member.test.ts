import { describe, expect, it } from 'vitest';
import { ShareMember } from '../../../src/actors/connector/share-member.js';
import type { AcknowledgeType } from '../../../src/kafka/share/ack-batches.js';
import { ShareConsumerMetrics } from '../../../src/kafka/share/share-consumer-metrics.js';
import type {
  PartitionAckResult,
  ShareConsumer,
  ShareRecord,
} from '../../../src/kafka/share/share-consumer.js';

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

const rec = (offset: number): ShareRecord => ({ topic: 't', partition: 0, offset }) as ShareRecord;

/** The part of a ShareConsumer a lease uses, counting as the real one does. */
class FakeConsumer {
  readonly metrics = new ShareConsumerMetrics();
  readonly acquisitionLockTimeoutMs = 30_000;
  subscribes = 0;
  closes = 0;
  subscribeError: Error | undefined;
  readonly answers: Array<ShareRecord[] | Error> = [];
  readonly acks: Array<[number[], AcknowledgeType]> = [];
  /** Called while a poll is "at the broker", before it answers. */
  duringPoll: (() => void) | undefined;

  subscribe(): Promise<void> {
    this.subscribes++;
    return this.subscribeError ? Promise.reject(this.subscribeError) : Promise.resolve();
  }

  renewSupported(): Promise<boolean> {
    return Promise.resolve(true);
  }

  async poll(): Promise<ShareRecord[]> {
    this.duringPoll?.();
    const next = this.answers.shift() ?? [];
    if (next instanceof Error) throw next;
    this.metrics.onFetch(2, next.length);
    return next;
  }

  acknowledge(records: readonly ShareRecord[], type: AcknowledgeType): Promise<PartitionAckResult[]> {
    const offsets = records.map((r) => r.offset);
    this.acks.push([offsets, type]);
    this.metrics.onAck(type, offsets.length, false);
    return Promise.resolve([{ topic: 't', partition: 0, type, offsets, error: null }]);
  }

  /** The member's holds, in order. */
  readonly holds: boolean[] = [];
  /** Where the member has records fetched while held go. */
  release: ((records: ShareRecord[]) => void) | undefined;
  hold(held: boolean, release?: (records: ShareRecord[]) => void): void {
    this.holds.push(held);
    this.release = held ? release : undefined;
  }

  close(): Promise<void> {
    this.closes++;
    return Promise.resolve();
  }
}

function member(): { member: ShareMember; made: FakeConsumer[] } {
  const made: FakeConsumer[] = [];
  const m = new ShareMember(() => {
    const c = new FakeConsumer();
    made.push(c);
    return c as unknown as ShareConsumer;
  });
  return { member: m, made };
}

describe('ShareMember (share.member.scope)', () => {
  it('gives every lease the same member: it joins once and leaves when the last lease closes', async () => {
    const { member: m, made } = member();
    const leases = [m.lease(), m.lease(), m.lease()];
    await Promise.all(leases.map((l) => l.subscribe(['t'])));
    expect(made).toHaveLength(1);
    expect(made[0]!.subscribes).toBe(1);
    await leases[0]!.close();
    await leases[0]!.close();
    await leases[1]!.close();
    expect(made[0]!.closes).toBe(0);
    await leases[2]!.close();
    expect(made[0]!.closes).toBe(1);
    // a task restarted after that joins with a new member
    await m.lease().subscribe(['t']);
    expect(made).toHaveLength(2);
    expect(made[1]!.subscribes).toBe(1);
  });

  it('a failed join fails every lease waiting on it; the next lease tries with a new member', async () => {
    const { member: m, made } = member();
    const a = m.lease();
    made[0]!.subscribeError = new Error('UNKNOWN_TOPIC_OR_PARTITION');
    const b = m.lease();
    await expect(a.subscribe(['t'])).rejects.toThrow('UNKNOWN_TOPIC');
    await expect(b.subscribe(['t'])).rejects.toThrow('UNKNOWN_TOPIC');
    await m.lease().subscribe(['t']);
    expect(made).toHaveLength(2);
  });

  it('a failed poll (the member failed) makes the next lease join with a new member', async () => {
    const { member: m, made } = member();
    const a = m.lease();
    made[0]!.answers.push(new Error('GROUP_AUTHORIZATION_FAILED'));
    await expect(a.poll()).rejects.toThrow('GROUP_AUTHORIZATION_FAILED');
    m.lease();
    expect(made).toHaveLength(2);
  });

  it('releases records a fetch under way brought back after the gate closed, and waits for resume', async () => {
    const { member: m, made } = member();
    const lease = m.lease();
    const c = made[0]!;
    c.answers.push([rec(1)], [rec(2)]);
    // the operator pauses while the first ShareFetch waits on the broker
    c.duringPoll = () => {
      lease.gate.pause();
      c.duringPoll = undefined;
    };
    const polled = lease.poll();
    expect(await settled(polled)).toBe(false);
    expect(c.acks).toEqual([[[1], 'release']]);
    // the task's share counters (sharesink_share_records_*_total) count the record it never saw
    expect(lease.metrics).toMatchObject({ recordsAcquired: 1, recordsReleased: 1 });
    lease.gate.resume();
    await expect(polled).resolves.toEqual([rec(2)]);
    expect(c.acks).toHaveLength(1);
    expect(lease.metrics.recordsReleased).toBe(1);
  });

  it('each lease counts what it fetched and acknowledged; together they count what the member did', async () => {
    const { member: m, made } = member();
    const a = m.lease();
    const b = m.lease();
    const c = made[0]!;
    c.answers.push([rec(1), rec(2)], [rec(3)]);
    const fromA = await a.poll();
    // an empty answer counts as a fetch too; the next lease that gets records takes it
    c.metrics.onFetch(500, 0);
    const fromB = await b.poll();
    await a.acknowledge(fromA, 'accept');
    await b.acknowledge(fromB, 'reject');
    // the member releases on its own (e.g. at close): the last lease to close takes that
    c.metrics.onAck('release', 4, false);
    await a.close();
    await b.close();
    expect(a.metrics).toMatchObject({
      fetches: 1,
      recordsAcquired: 2,
      recordsAccepted: 2,
      recordsRejected: 0,
    });
    expect(b.metrics).toMatchObject({
      fetches: 2,
      recordsAcquired: 1,
      recordsRejected: 1,
      recordsReleased: 4,
    });
    for (const f of [
      'fetches',
      'recordsAcquired',
      'recordsAccepted',
      'recordsRejected',
      'recordsReleased',
    ] as const)
      expect(a.metrics[f] + b.metrics[f]).toBe(c.metrics[f]);
  });

  it('holds the member while every lease is paused (a stopping lease aside), and lets go when one is open', async () => {
    const { member: m, made } = member();
    const a = m.lease();
    const b = m.lease();
    const c = made[0]!;
    a.gate.pause();
    expect(c.holds).toEqual([]);
    b.gate.pause();
    expect(c.holds).toEqual([true]);
    a.gate.resume();
    expect(c.holds).toEqual([true, false]);
    // a task stopping while the others are paused: its released gate does not keep the member fetching
    a.gate.release();
    expect(c.holds).toEqual([true, false, true]);
    await a.close();
    expect(c.holds).toEqual([true, false, true]);
    // a task (re)started while paused comes with an open gate until the connector pauses it
    const d = m.lease();
    expect(c.holds).toEqual([true, false, true, false]);
    d.gate.pause();
    expect(c.holds).toEqual([true, false, true, false, true]);
    // the last lease closes the member: nothing held any more to let go of
    await b.close();
    await d.close();
    expect(c.closes).toBe(1);
    expect(c.holds).toHaveLength(5);
  });

  it('what the held member fetched anyway is released through a paused lease, which counts it', async () => {
    const { member: m, made } = member();
    const a = m.lease();
    const b = m.lease();
    const c = made[0]!;
    a.gate.pause();
    b.gate.pause();
    // a ShareFetch under way when the pause came answers with two records
    c.metrics.onFetch(3, 2);
    c.release!([rec(7), rec(8)]);
    await new Promise((r) => setImmediate(r));
    expect(c.acks).toEqual([[[7, 8], 'release']]);
    expect(a.metrics.recordsAcquired + b.metrics.recordsAcquired).toBe(2);
    expect(a.metrics.recordsReleased + b.metrics.recordsReleased).toBe(2);
    await a.close();
    await b.close();
  });
});
