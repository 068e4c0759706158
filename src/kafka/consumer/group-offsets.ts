/**
 * Where a consumer-protocol member starts reading a partition: OffsetFetch v9 to the group coordinator
 * with the member id and epoch (KIP-848), ListOffsets to the partition leader for `auto.offset.reset`
 * when the group has no committed offset. Its commits are in offset-commits.ts.
 */
import type { KafkaCluster } from '../cluster.js';
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, ListOffsets } from '../protocol/messages/list-offsets.js';
import { OffsetFetch } from '../protocol/messages/offset-fetch.js';

export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export interface MemberRef {
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly instanceId: string | null;
}

function byTopic<T extends { topic: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) out.set(it.topic, [...(out.get(it.topic) ?? []), it]);
  return out;
}

/** The committed offsets of these partitions (-1 = none). */
export async function fetchCommitted(
  cluster: KafkaCluster,
  member: MemberRef,
  partitions: ReadonlyArray<{ topic: string; partition: number }>,
): Promise<TopicPartitionOffset[]> {
  const coordinator = await cluster.findGroupCoordinator(member.groupId);
  const conn = await cluster.connectionTo(coordinator.nodeId);
  const res = await conn.call(OffsetFetch, {
    groupId: member.groupId,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    topics: [...byTopic(partitions)].map(([name, ps]) => ({
      name,
      partitionIndexes: ps.map((p) => p.partition),
    })),
    requireStable: true,
  });
  const group = res.groups[0];
  if (group === undefined)
    throw new KafkaError(-1, { api: 'OffsetFetch', subject: `group ${member.groupId}` });
  if (group.errorCode !== 0)
    throw new KafkaError(group.errorCode, { api: 'OffsetFetch', subject: `group ${member.groupId}` });
  const out: TopicPartitionOffset[] = [];
  for (const t of group.topics)
    for (const p of t.partitions) {
      if (p.errorCode !== 0)
        throw new KafkaError(p.errorCode, { api: 'OffsetFetch', subject: `${t.name}-${p.partitionIndex}` });
      out.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset });
    }
  return out;
}

/** The earliest or latest offset of each partition, asked of its leader. */
export async function listOffsets(
  cluster: KafkaCluster,
  partitions: ReadonlyArray<{ topic: string; partition: number }>,
  where: 'earliest' | 'latest',
  isolationLevel: number,
): Promise<TopicPartitionOffset[]> {
  const perLeader = new Map<number, Array<{ topic: string; partition: number }>>();
  await cluster.refreshMetadata([...new Set(partitions.map((p) => p.topic))]);
  for (const p of partitions) {
    const topicId = cluster.topicByName(p.topic)?.topicId ?? '';
    const leader = cluster.leaderFor(topicId, p.partition) ?? -1;
    perLeader.set(leader, [...(perLeader.get(leader) ?? []), p]);
  }
  const timestamp = where === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP;
  const answers = await Promise.all(
    [...perLeader].map(async ([leader, ps]) => {
      if (leader < 0) throw new KafkaError(KafkaErrorCode.LEADER_NOT_AVAILABLE, { api: 'ListOffsets' });
      const conn = await cluster.connectionTo(leader);
      const res = await conn.call(ListOffsets, {
        isolationLevel,
        timeoutMs: 30_000,
        topics: [...byTopic(ps)].map(([name, list]) => ({
          name,
          partitions: list.map((p) => ({ partitionIndex: p.partition, currentLeaderEpoch: -1, timestamp })),
        })),
      });
      const out: TopicPartitionOffset[] = [];
      for (const t of res.topics)
        for (const p of t.partitions) {
          if (p.errorCode !== 0)
            throw new KafkaError(p.errorCode, {
              api: 'ListOffsets',
              subject: `${t.name}-${p.partitionIndex}`,
            });
          out.push({ topic: t.name, partition: p.partitionIndex, offset: p.offset });
        }
      return out;
    }),
  );
  return answers.flat();
}
