/**
 * A share group's offsets on the wire: DescribeShareGroupOffsets (start offset and lag per partition),
 * AlterShareGroupOffsets and DeleteShareGroupOffsets, each at the group coordinator, and
 * ShareGroupDescribe for the members a refusal names. Retriable coordinator errors (moving, loading)
 * are retried a few times; everything else surfaces as a {@link KafkaError} or a {@link GroupNotEmptyError}.
 */
import type { KafkaCluster } from '../kafka/cluster.js';
import { KafkaError, KafkaErrorCode } from '../kafka/errors/kafka-errors.js';
import { ShareGroupDescribe } from '../kafka/protocol/messages/share-group-describe.js';
import {
  AlterShareGroupOffsets,
  DeleteShareGroupOffsets,
  DescribeShareGroupOffsets,
} from '../kafka/protocol/messages/share-group-offsets.js';
import type { OffsetChange, PartitionOffset } from './connect-shape.js';
import { GroupNotEmptyError, OffsetsRequestError, type GroupMemberView } from './errors.js';

/** What these calls need of a cluster (a {@link KafkaCluster}; narrowed so tests can stand in). */
export type OffsetsCluster = Pick<KafkaCluster, 'findGroupCoordinator' | 'connectionTo'>;

const ATTEMPTS = 6;
const BACKOFF_MS = 300;

async function atCoordinator<T>(
  cluster: OffsetsCluster,
  groupId: string,
  call: (conn: Awaited<ReturnType<OffsetsCluster['connectionTo']>>) => Promise<T>,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      const coordinator = await cluster.findGroupCoordinator(groupId);
      return await call(await cluster.connectionTo(coordinator.nodeId));
    } catch (err) {
      if (!(err instanceof KafkaError && err.retriable) || n >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, BACKOFF_MS * n));
    }
  }
}

function check(code: number, api: string, subject: string, brokerMessage: string | null): void {
  if (code !== 0) throw new KafkaError(code, { api, subject, brokerMessage });
}

/**
 * The start offset and lag of every partition the share group has state for; empty when the group
 * does not exist. Lag is undefined when the broker answers -1 (unknown, or a broker before 4.2).
 */
export async function describeShareOffsets(
  cluster: OffsetsCluster,
  groupId: string,
): Promise<PartitionOffset[]> {
  return atCoordinator(cluster, groupId, async (conn) => {
    const res = await conn.call(DescribeShareGroupOffsets, { groups: [{ groupId, topics: null }] });
    const group = res.groups.find((g) => g.groupId === groupId);
    if (group === undefined || group.errorCode === KafkaErrorCode.GROUP_ID_NOT_FOUND) return [];
    check(group.errorCode, 'DescribeShareGroupOffsets', `group ${groupId}`, group.errorMessage);
    const out: PartitionOffset[] = [];
    for (const t of group.topics)
      for (const p of t.partitions) {
        check(p.errorCode, 'DescribeShareGroupOffsets', `${t.topicName}-${p.partitionIndex}`, p.errorMessage);
        if (p.startOffset < 0) continue; // no state for this partition
        out.push({
          topic: t.topicName,
          partition: p.partitionIndex,
          offset: p.startOffset,
          lag: p.lag >= 0 ? p.lag : undefined,
        });
      }
    return out;
  });
}

/** The members ShareGroupDescribe lists; empty when the group is empty or does not exist. */
export async function shareGroupMembers(
  cluster: OffsetsCluster,
  groupId: string,
): Promise<GroupMemberView[]> {
  return atCoordinator(cluster, groupId, async (conn) => {
    const res = await conn.call(ShareGroupDescribe, {
      groupIds: [groupId],
      includeAuthorizedOperations: false,
    });
    const g = res.groups.find((x) => x.groupId === groupId);
    if (g === undefined || g.errorCode === KafkaErrorCode.GROUP_ID_NOT_FOUND) return [];
    check(g.errorCode, 'ShareGroupDescribe', `group ${groupId}`, g.errorMessage);
    return g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, host: m.clientHost }));
  });
}

async function refuseIfNotEmpty(cluster: OffsetsCluster, groupId: string): Promise<void> {
  const members = await shareGroupMembers(cluster, groupId);
  if (members.length > 0) throw new GroupNotEmptyError(groupId, 'share', members);
}

/** NON_EMPTY_GROUP from Alter / Delete: a member joined between our check and the request. */
async function nonEmpty(cluster: OffsetsCluster, groupId: string): Promise<never> {
  throw new GroupNotEmptyError(groupId, 'share', await shareGroupMembers(cluster, groupId).catch(() => []));
}

/**
 * Moves each partition's start offset (AlterShareGroupOffsets). A share group has no per-partition
 * delete (DeleteShareGroupOffsets takes whole topics), so a null offset is refused: reset every
 * partition with DELETE instead.
 */
export async function alterShareOffsets(
  cluster: OffsetsCluster,
  groupId: string,
  changes: readonly OffsetChange[],
): Promise<void> {
  const nulls = changes.filter((c) => c.offset === null);
  if (nulls.length > 0)
    throw new OffsetsRequestError(
      `Share mode cannot reset a single partition (offset null for ${nulls.map((c) => `${c.topic}-${c.partition}`).join(', ')}): ` +
        "the broker deletes a share group's state per topic only. Give a kafka_offset, or reset every partition with DELETE /connectors/{name}/offsets.",
    );
  await refuseIfNotEmpty(cluster, groupId);
  const byTopic = new Map<string, Array<{ partitionIndex: number; startOffset: number }>>();
  for (const c of changes) {
    let list = byTopic.get(c.topic);
    if (list === undefined) byTopic.set(c.topic, (list = []));
    list.push({ partitionIndex: c.partition, startOffset: c.offset! });
  }
  const topics = [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions }));
  const res = await atCoordinator(cluster, groupId, (conn) =>
    conn.call(AlterShareGroupOffsets, { groupId, topics }),
  );
  if (res.errorCode === KafkaErrorCode.NON_EMPTY_GROUP) return nonEmpty(cluster, groupId);
  check(res.errorCode, 'AlterShareGroupOffsets', `group ${groupId}`, res.errorMessage);
  for (const t of res.responses)
    for (const p of t.partitions) {
      if (p.errorCode === KafkaErrorCode.NON_EMPTY_GROUP) return nonEmpty(cluster, groupId);
      check(p.errorCode, 'AlterShareGroupOffsets', `${t.topicName}-${p.partitionIndex}`, p.errorMessage);
    }
}

/**
 * Deletes the group's state for every topic it has state for (DeleteShareGroupOffsets): the partitions
 * start again from `share.auto.offset.reset` the next time the group reads them. Returns the topics.
 */
export async function deleteShareOffsets(cluster: OffsetsCluster, groupId: string): Promise<string[]> {
  await refuseIfNotEmpty(cluster, groupId);
  const topics = [...new Set((await describeShareOffsets(cluster, groupId)).map((p) => p.topic))];
  if (topics.length === 0) return [];
  const res = await atCoordinator(cluster, groupId, (conn) =>
    conn.call(DeleteShareGroupOffsets, { groupId, topics: topics.map((topicName) => ({ topicName })) }),
  );
  if (res.errorCode === KafkaErrorCode.NON_EMPTY_GROUP) return nonEmpty(cluster, groupId);
  check(res.errorCode, 'DeleteShareGroupOffsets', `group ${groupId}`, res.errorMessage);
  for (const t of res.responses) {
    if (t.errorCode === KafkaErrorCode.NON_EMPTY_GROUP) return nonEmpty(cluster, groupId);
    check(t.errorCode, 'DeleteShareGroupOffsets', `topic ${t.topicName}`, t.errorMessage);
  }
  return topics;
}
