/**
 * A classic consumer group's offsets through kafkajs's admin client, as Connect's Worker does it with
 * the Java admin: read the committed offsets, set some, or delete the group (Connect's reset of a sink
 * connector deletes its consumer group). kafkajs has no OffsetDelete: a null offset for one partition
 * (Connect's reset of that partition) goes through our wire codec.
 */
import type { Admin } from 'kafkajs';
import { KafkaError } from '../kafka/errors/kafka-errors.js';
import { OffsetDelete } from '../kafka/protocol/messages/offset-delete.js';
import type { OffsetChange, PartitionOffset } from './connect-shape.js';
import { GroupNotEmptyError, type GroupMemberView } from './errors.js';
import type { OffsetsCluster } from './share-offsets.js';

/** What these calls need of a kafkajs admin (narrowed so tests can stand in). */
export type OffsetsAdmin = Pick<Admin, 'fetchOffsets' | 'setOffsets' | 'deleteGroups' | 'describeGroups'>;

/** kafkajs codes: 68 NON_EMPTY_GROUP, 69 GROUP_ID_NOT_FOUND. */
const NON_EMPTY_GROUP = 68;
const GROUP_ID_NOT_FOUND = 69;

/** Every partition the group has committed an offset for. */
export async function readClassicOffsets(admin: OffsetsAdmin, groupId: string): Promise<PartitionOffset[]> {
  const topics = await admin.fetchOffsets({ groupId });
  const out: PartitionOffset[] = [];
  for (const t of topics)
    for (const p of t.partitions) {
      const offset = Number(p.offset);
      if (offset >= 0) out.push({ topic: t.topic, partition: p.partition, offset });
    }
  return out;
}

export async function consumerGroupMembers(admin: OffsetsAdmin, groupId: string): Promise<GroupMemberView[]> {
  const { groups } = await admin.describeGroups([groupId]);
  const g = groups.find((x) => x.groupId === groupId);
  if (g === undefined || g.state === 'Dead' || g.state === 'Empty') return [];
  return g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, host: m.clientHost }));
}

async function refuseIfNotEmpty(admin: OffsetsAdmin, groupId: string): Promise<void> {
  const members = await consumerGroupMembers(admin, groupId);
  if (members.length > 0) throw new GroupNotEmptyError(groupId, 'consumer', members);
}

/** Deletes the committed offsets of some partitions (OffsetDelete at the group coordinator). */
export async function deleteClassicPartitionOffsets(
  cluster: OffsetsCluster,
  groupId: string,
  partitions: ReadonlyArray<{ topic: string; partition: number }>,
): Promise<void> {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) {
    let list = byTopic.get(p.topic);
    if (list === undefined) byTopic.set(p.topic, (list = []));
    list.push(p.partition);
  }
  const topics = [...byTopic].map(([name, ps]) => ({ name, partitions: ps }));
  const coordinator = await cluster.findGroupCoordinator(groupId);
  const res = await (await cluster.connectionTo(coordinator.nodeId)).call(OffsetDelete, { groupId, topics });
  // a group without offsets has nothing to delete: already reset
  if (res.errorCode === GROUP_ID_NOT_FOUND) return;
  if (res.errorCode !== 0)
    throw new KafkaError(res.errorCode, { api: 'OffsetDelete', subject: `group ${groupId}` });
  for (const t of res.topics)
    for (const p of t.partitions)
      if (p.errorCode !== 0)
        throw new KafkaError(p.errorCode, { api: 'OffsetDelete', subject: `${t.name}-${p.partitionIndex}` });
}

/**
 * Connect's alter for a sink: offsets given are committed (kafkajs `setOffsets`, per topic), null ones
 * deleted (OffsetDelete), once the group is found empty.
 */
export async function alterClassicOffsets(
  admin: OffsetsAdmin,
  cluster: () => Promise<OffsetsCluster>,
  groupId: string,
  changes: readonly OffsetChange[],
): Promise<void> {
  await refuseIfNotEmpty(admin, groupId);
  const byTopic = new Map<string, Array<{ partition: number; offset: string }>>();
  const resets: OffsetChange[] = [];
  for (const c of changes) {
    if (c.offset === null) {
      resets.push(c);
      continue;
    }
    let list = byTopic.get(c.topic);
    if (list === undefined) byTopic.set(c.topic, (list = []));
    list.push({ partition: c.partition, offset: String(c.offset) });
  }
  for (const [topic, partitions] of byTopic) await admin.setOffsets({ groupId, topic, partitions });
  if (resets.length > 0) await deleteClassicPartitionOffsets(await cluster(), groupId, resets);
}

/** Deletes the consumer group, as Connect's reset does; a group that does not exist is already reset. */
export async function deleteClassicGroup(admin: OffsetsAdmin, groupId: string): Promise<void> {
  await refuseIfNotEmpty(admin, groupId);
  try {
    await admin.deleteGroups([groupId]);
  } catch (err) {
    const groups = (err as { groups?: Array<{ groupId: string; errorCode: number }> }).groups ?? [];
    const ours = groups.find((g) => g.groupId === groupId);
    if (ours?.errorCode === GROUP_ID_NOT_FOUND) return;
    if (ours?.errorCode === NON_EMPTY_GROUP)
      throw new GroupNotEmptyError(groupId, 'consumer', await consumerGroupMembers(admin, groupId));
    throw err;
  }
}
