/**
 * A classic consumer group's offsets through kafkajs's admin client, as Connect's Worker does it with
 * the Java admin: read the committed offsets, set some, or delete the group (Connect's reset of a sink
 * connector deletes its consumer group). kafkajs has no OffsetDelete, so a null offset for one partition
 * is refused; DELETE resets them all.
 */
import type { Admin } from 'kafkajs';
import type { OffsetChange, PartitionOffset } from './connect-shape.js';
import { GroupNotEmptyError, OffsetsRequestError, type GroupMemberView } from './errors.js';

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

export async function alterClassicOffsets(
  admin: OffsetsAdmin,
  groupId: string,
  changes: readonly OffsetChange[],
): Promise<void> {
  const nulls = changes.filter((c) => c.offset === null);
  if (nulls.length > 0)
    throw new OffsetsRequestError(
      `Classic mode cannot reset a single partition yet (offset null for ${nulls.map((c) => `${c.topic}-${c.partition}`).join(', ')}): ` +
        'give a kafka_offset, or reset every partition with DELETE /connectors/{name}/offsets.',
    );
  await refuseIfNotEmpty(admin, groupId);
  const byTopic = new Map<string, Array<{ partition: number; offset: string }>>();
  for (const c of changes) {
    let list = byTopic.get(c.topic);
    if (list === undefined) byTopic.set(c.topic, (list = []));
    list.push({ partition: c.partition, offset: String(c.offset) });
  }
  for (const [topic, partitions] of byTopic) await admin.setOffsets({ groupId, topic, partitions });
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
