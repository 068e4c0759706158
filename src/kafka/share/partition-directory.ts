/**
 * What a share consumer knows about topics and partitions: topic id ⇄ name (the share APIs speak ids,
 * applications speak names), each partition's leader, and the member's current assignment. Pure state:
 * the consumer fetches metadata and heartbeats, this answers questions about the result.
 */
import type { ShareTopicPartitions } from '../protocol/messages/share-group-heartbeat.js';
import { tpKey, type TopicIdPartition } from './share-session.js';
import type { TopicMetadata } from './transport.js';
import { AckNotAllowedError } from './share-errors.js';

/** Offsets of one partition named by topic name, as an acknowledgement names them. */
export interface PartitionOffsets {
  readonly topic: string;
  readonly partition: number;
  readonly offsets: number[];
}

export interface Placement {
  /** Assigned partitions grouped by the node that leads them. */
  readonly perNode: Map<number, TopicIdPartition[]>;
  /** False when an assigned partition has no known leader or topic name yet: refresh metadata. */
  readonly complete: boolean;
}

export class PartitionDirectory {
  private readonly names = new Map<string, string>();
  private readonly ids = new Map<string, string>();
  private readonly leaders = new Map<string, number>();
  private assignment = new Map<string, TopicIdPartition>();

  topicName(topicId: string): string | undefined {
    return this.names.get(topicId);
  }

  topicId(topic: string): string | undefined {
    return this.ids.get(topic);
  }

  leaderOf(key: string): number | undefined {
    return this.leaders.get(key);
  }

  get assigned(): ReadonlyMap<string, TopicIdPartition> {
    return this.assignment;
  }

  /** Learns names, ids and leaders; assigned partitions whose topic name was unknown get it now. */
  applyMetadata(topics: readonly TopicMetadata[]): void {
    for (const t of topics) {
      if (t.errorCode !== 0) continue;
      this.names.set(t.topicId, t.name);
      this.ids.set(t.name, t.topicId);
      for (const p of t.partitions) this.leaders.set(tpKey(t.topicId, p.partition), p.leaderId);
    }
    for (const [key, p] of this.assignment) {
      if (p.topic !== '') continue;
      const name = this.names.get(p.topicId);
      if (name !== undefined) this.assignment.set(key, { ...p, topic: name });
    }
  }

  /** Replaces the assignment; `unknownTopics` when a topic id has no name yet (metadata is due). */
  setAssignment(assignment: readonly ShareTopicPartitions[]): { partitions: number; unknownTopics: boolean } {
    const next = new Map<string, TopicIdPartition>();
    let unknownTopics = false;
    for (const t of assignment) {
      const topic = this.names.get(t.topicId);
      if (topic === undefined) unknownTopics = true;
      for (const partition of t.partitions) {
        next.set(tpKey(t.topicId, partition), { topicId: t.topicId, topic: topic ?? '', partition });
      }
    }
    this.assignment = next;
    return { partitions: next.size, unknownTopics };
  }

  /** The assigned partitions by leader. */
  placement(): Placement {
    const perNode = new Map<number, TopicIdPartition[]>();
    let complete = true;
    for (const [key, p] of this.assignment) {
      const leader = this.leaders.get(key);
      if (leader === undefined || leader < 0 || p.topic === '') {
        complete = false;
        continue;
      }
      let list = perNode.get(leader);
      if (!list) perNode.set(leader, (list = []));
      list.push(p);
    }
    return { perNode, complete };
  }

  /** The partition behind a tpKey: the assigned one, or one rebuilt from what metadata says. */
  partition(key: string): TopicIdPartition | undefined {
    const assigned = this.assignment.get(key);
    if (assigned) return assigned;
    const i = key.lastIndexOf(':');
    const topicId = key.slice(0, i);
    const topic = this.names.get(topicId);
    return topic === undefined ? undefined : { topicId, topic, partition: Number(key.slice(i + 1)) };
  }

  /**
   * Groups records (or one partition's offsets) by tpKey in one pass. Records of one fetch come grouped
   * by partition, so the current group is reused while it matches.
   * @throws AckNotAllowedError for a topic this consumer never saw
   */
  group(
    target:
      | { readonly topic: string; readonly partition: number; readonly offsets: readonly number[] }
      | ReadonlyArray<{ readonly topic: string; readonly partition: number; readonly offset: number }>,
  ): Map<string, PartitionOffsets> {
    const groups = new Map<string, PartitionOffsets>();
    const groupOf = (topic: string, partition: number, offsetForError: number): PartitionOffsets => {
      const topicId = this.ids.get(topic);
      if (topicId === undefined) throw new AckNotAllowedError(topic, partition, [offsetForError]);
      const key = tpKey(topicId, partition);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { topic, partition, offsets: [] }));
      return g;
    };
    if (!Array.isArray(target)) {
      const t = target as { topic: string; partition: number; offsets: readonly number[] };
      const g = groupOf(t.topic, t.partition, t.offsets[0] ?? -1);
      // not push(...offsets): a spread of a few hundred thousand arguments overflows the stack
      const offsets = t.offsets;
      for (let i = 0; i < offsets.length; i++) g.offsets.push(offsets[i]!);
      return groups;
    }
    // indexed loops here and in the rest of the acknowledgement path: per record, and a for-of that
    // V8 did not optimize allocated an iterator result per offset
    const records = target as ReadonlyArray<{ topic: string; partition: number; offset: number }>;
    let last: PartitionOffsets | undefined;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (!last || last.topic !== r.topic || last.partition !== r.partition) {
        last = groupOf(r.topic, r.partition, r.offset);
      }
      last.offsets.push(r.offset);
    }
    return groups;
  }
}
