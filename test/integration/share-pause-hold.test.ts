// A paused connector's shared share member on a real broker. Several tasks lease one member, and each
// task's poll may be waiting inside the member when the pause comes. A ShareFetch already at the broker
// then acquires the records produced right after the pause, and the lease that gets them gives them back;
// but the other leases' polls were still waiting, so the member fetched again, acquired the same records
// again and gave them back again: each pause cost such records one or two delivery attempts of
// `share.delivery.count.limit` (instrumented in a 6-task connector: acquired twice). The member now holds
// while every lease is paused: no fetch for waiting polls, and what a fetch under way brings back is
// released at once, so a pause costs a record at most the one acquisition that was already under way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShareMember, type TaskShareConsumer } from '../../src/actors/connector/share-member.js';
import type { ShareConsumer, ShareRecord } from '../../src/kafka/share/share-consumer.js';
import {
  createTopic,
  deleteTopics,
  produce,
  setShareAutoOffsetReset,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { shareConsumers } from './harness/share.js';
import { sleep, until } from './harness/wait.js';

const consumers = shareConsumers();
const topics: string[] = [];
const LEASES = 4;

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

/** A task's fetch loop in miniature: polls its lease and accepts what it gets, until stopped. */
function taskLoop(lease: TaskShareConsumer, got: ShareRecord[], running: () => boolean): Promise<void> {
  return (async () => {
    while (running()) {
      const records = await lease.poll({ maxWaitMs: 1000 });
      if (records.length === 0) continue;
      got.push(...records);
      await lease.acknowledge(records, 'accept');
    }
  })();
}

describe('a paused shared share member', () => {
  let topic: string;
  beforeAll(async () => {
    topic = uniqueTopic('pause-hold');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
  });

  it('acquires records produced during a pause at most once, and hands them out at resume', async () => {
    const group = uniqueGroup('pause-hold');
    await setShareAutoOffsetReset(group, 'earliest');
    const made: ShareConsumer[] = [];
    const member = new ShareMember(() => {
      made.push(consumers.make(group));
      return made[made.length - 1]!;
    });
    const leases = Array.from({ length: LEASES }, () => member.lease());
    await Promise.all(leases.map((l) => l.subscribe([topic])));
    expect(made).toHaveLength(1);
    const consumer = made[0]!;
    const got: ShareRecord[] = [];
    let running = true;
    const loops = leases.map((l) => taskLoop(l, got, () => running));
    try {
      // the member is in the group and assigned once records flow
      await produce(topic, ['warm-up']);
      await until(
        'the warm-up record',
        () => got.length,
        (n) => n >= 1,
        20_000,
      );
      // every lease's poll now waits inside the member: the state a pause finds a connector in
      await sleep(300);
      for (const l of leases) l.gate.pause();
      const acquiredBefore = consumer.metrics.recordsAcquired;
      await produce(
        topic,
        Array.from({ length: 30 }, (_, i) => `p-${i}`),
      );
      // longer than every waiting poll (1 s) and several long polls (500 ms)
      await sleep(3000);
      expect(got).toHaveLength(1);
      const acquiredPaused = consumer.metrics.recordsAcquired - acquiredBefore;
      expect(acquiredPaused, 'records acquired while paused').toBeLessThanOrEqual(30);

      for (const l of leases) l.gate.resume();
      await until(
        '31 records',
        () => got.length,
        (n) => n >= 31,
        20_000,
      );
      const paused = got.slice(1);
      expect(new Set(paused.map((r) => r.offset)).size).toBe(30);
      // one acquisition at most while paused, the one at resume: delivery count 1 or 2
      expect(Math.max(...paused.map((r) => r.deliveryCount))).toBeLessThanOrEqual(2);
    } finally {
      running = false;
      for (const l of leases) l.gate.release();
      await Promise.all(loops);
      await Promise.all(leases.map((l) => l.close()));
    }
  }, 60_000);
});
