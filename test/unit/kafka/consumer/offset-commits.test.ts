import { describe, expect, it } from 'vitest';
import type { KafkaCluster } from '../../../../src/kafka/cluster.js';
import {
  KafkaConnectionError,
  KafkaError,
  KafkaErrorCode,
} from '../../../../src/kafka/errors/kafka-errors.js';
import { OffsetCommits } from '../../../../src/kafka/consumer/offset-commits.js';
import type { MemberRef } from '../../../../src/kafka/consumer/group-offsets.js';
import type {
  OffsetCommitRequest,
  OffsetCommitResponse,
} from '../../../../src/kafka/protocol/messages/offset-commit.js';

type Answer = (req: OffsetCommitRequest) => OffsetCommitResponse | Error;

const ok: Answer = (req) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
  })),
});

const notCoordinator: Answer = (req) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: KafkaErrorCode.NOT_COORDINATOR,
    })),
  })),
});

/** A coordinator answering each OffsetCommit from `script` (then `ok`) once the test releases it. */
function fakeCluster(script: Answer[] = []) {
  const sent: Array<{ lane: string | undefined; req: OffsetCommitRequest }> = [];
  const releases: Array<() => void> = [];
  let lookups = 0;
  const cluster = {
    findGroupCoordinator: () => {
      lookups++;
      return Promise.resolve({ nodeId: 1, host: 'h', port: 1, rack: null });
    },
    connectionTo: (_node: number, lane?: string) =>
      Promise.resolve({
        call: async (_api: unknown, req: OffsetCommitRequest) => {
          sent.push({ lane, req: structuredClone(req) });
          await new Promise<void>((r) => releases.push(r));
          const a = (script.shift() ?? ok)(req);
          if (a instanceof Error) throw a;
          return a;
        },
      }),
  } as unknown as KafkaCluster;
  let epoch = 3;
  const member = (): MemberRef => ({ groupId: 'g', memberId: 'm', memberEpoch: epoch, instanceId: null });
  const flush = () => new Promise<void>((r) => setTimeout(r, 1));
  return {
    commits: new OffsetCommits(cluster, member),
    sent,
    lookups: () => lookups,
    setEpoch: (e: number) => (epoch = e),
    /** Answers the request in flight. */
    answer: async () => {
      await flush();
      releases.shift()?.();
      await flush();
    },
  };
}

const tp = (topic: string, partition: number, offset: number) => ({ topic, partition, offset });
const offsetsOf = (req: OffsetCommitRequest) =>
  req.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partitionIndex}@${p.committedOffset}`));

describe('OffsetCommits', () => {
  it('sends the commits asked for while one is under way together, each resolving on its answer', async () => {
    const f = fakeCluster();
    const first = f.commits.commit([tp('t', 0, 10)]);
    const done: string[] = [];
    const rest = [
      f.commits.commit([tp('t', 1, 20)]).then(() => done.push('t-1')),
      f.commits.commit([tp('t', 2, 30)]).then(() => done.push('t-2')),
      f.commits.commit([tp('u', 0, 5)]).then(() => done.push('u-0')),
    ];
    f.setEpoch(4); // read when the second request goes
    await f.answer();
    await first;
    expect(done).toEqual([]); // the second request is under way
    await f.answer();
    await Promise.all(rest);
    expect(f.sent.map((s) => offsetsOf(s.req))).toEqual([['t-0@10'], ['t-1@20', 't-2@30', 'u-0@5']]);
    // the member's epoch when each request goes, on a connection of their own; the coordinator looked up once
    expect(f.sent.map((s) => [s.req.memberEpoch, s.lane])).toEqual([
      [3, 'commit'],
      [4, 'commit'],
    ]);
    expect(f.lookups()).toBe(1);
  });

  it('sends a partition asked for twice once, at its highest offset', async () => {
    const f = fakeCluster();
    const first = f.commits.commit([tp('t', 9, 1)]);
    const a = f.commits.commit([tp('t', 0, 10)]);
    const b = f.commits.commit([tp('t', 0, 12), tp('t', 1, 3)]);
    await f.answer();
    await f.answer();
    await Promise.all([first, a, b]);
    expect(offsetsOf(f.sent[1]!.req)).toEqual(['t-0@12', 't-1@3']);
  });

  it("rejects only the commits whose partition the coordinator refused, with that partition's error", async () => {
    const refuse: Answer = (req) => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.partitionIndex === 1 ? KafkaErrorCode.STALE_MEMBER_EPOCH : 0,
        })),
      })),
    });
    const f = fakeCluster([ok, refuse]);
    const first = f.commits.commit([tp('t', 0, 1)]);
    const a = f.commits.commit([tp('t', 0, 2)]);
    const b = f.commits.commit([tp('t', 1, 2)]).catch((e: unknown) => e);
    await f.answer();
    await f.answer();
    await first;
    await expect(a).resolves.toBeUndefined();
    const err: unknown = await b;
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).kafkaCode).toBe(KafkaErrorCode.STALE_MEMBER_EPOCH);
    expect((err as KafkaError).message).toContain('t-1');
  });

  it('looks the coordinator up again after NOT_COORDINATOR or a broken connection, and rejects the request', async () => {
    const f = fakeCluster([notCoordinator, () => new KafkaConnectionError('h:1', 'closed'), ok]);
    const a = f.commits.commit([tp('t', 0, 1)]).catch((e: unknown) => e);
    await f.answer();
    expect(((await a) as KafkaError).kafkaCode).toBe(KafkaErrorCode.NOT_COORDINATOR);
    const b = f.commits.commit([tp('t', 0, 1)]).catch((e: unknown) => e);
    await f.answer();
    expect(await b).toBeInstanceOf(KafkaConnectionError);
    const c = f.commits.commit([tp('t', 0, 1)]);
    await f.answer();
    await c;
    expect(f.lookups()).toBe(3);
  });

  it('a coordinator kept from an earlier commit that moved is looked up again and asked once more', async () => {
    const f = fakeCluster([ok, notCoordinator, ok, () => new KafkaConnectionError('h:1', 'closed'), ok]);
    const first = f.commits.commit([tp('t', 0, 1)]);
    await f.answer();
    await first; // the coordinator is kept from here on
    const moved = f.commits.commit([tp('t', 0, 2)]);
    await f.answer();
    await f.answer();
    await expect(moved).resolves.toBeUndefined();
    const closed = f.commits.commit([tp('t', 0, 3)]);
    await f.answer();
    await f.answer();
    await expect(closed).resolves.toBeUndefined();
    expect(f.lookups()).toBe(3);
    expect(f.sent.map((x) => x.req.topics[0]!.partitions[0]!.committedOffset)).toEqual([1, 2, 2, 3, 3]);
  });

  it('sends nothing for no offsets', async () => {
    const f = fakeCluster();
    await f.commits.commit([]);
    expect(f.sent).toEqual([]);
  });
});
