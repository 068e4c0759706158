/**
 * The client half of one share session (KIP-932): one per (member, partition leader).
 *
 * Like an incremental fetch session, the broker remembers which partitions the session holds, so each
 * request names only what changed. Epoch 0 opens (and replaces) a session, every later request carries
 * the previous epoch + 1, and -1 closes it. Requests of one session must be strictly sequential: the
 * owner sends one at a time and reports each outcome here before building the next.
 */
import type { ForgottenTopic } from '../protocol/messages/share-fetch.js';

export interface TopicIdPartition {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
}

export const tpKey = (topicId: string, partition: number): string => `${topicId}:${partition}`;

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
const MAX_EPOCH = 2 ** 31 - 1;

export interface SessionChanges {
  /** Partitions to name in Topics[] because the session does not hold them yet. */
  readonly added: TopicIdPartition[];
  /** Partitions to drop from the session. */
  readonly forgotten: ForgottenTopic[];
}

export class ShareSession {
  readonly nodeId: number;
  private nextEpoch = INITIAL_EPOCH;
  /** What the broker's session holds, as far as we know. */
  private readonly held = new Map<string, TopicIdPartition>();
  /** What we want it to hold: the assigned partitions this node leads. */
  private readonly wanted = new Map<string, TopicIdPartition>();

  constructor(nodeId: number) {
    this.nodeId = nodeId;
  }

  get epoch(): number {
    return this.nextEpoch;
  }

  /** True before the first successful request and after a reset: acknowledgements cannot be sent yet. */
  get isNew(): boolean {
    return this.nextEpoch === INITIAL_EPOCH;
  }

  get wantedPartitions(): ReadonlyMap<string, TopicIdPartition> {
    return this.wanted;
  }

  /** The broker holds (or will hold after the next request) these partitions. */
  holds(key: string): boolean {
    return this.held.has(key) || this.wanted.has(key);
  }

  setWanted(partitions: Iterable<TopicIdPartition>): void {
    this.wanted.clear();
    for (const p of partitions) this.wanted.set(tpKey(p.topicId, p.partition), p);
  }

  /**
   * The partition changes the next ShareFetch must carry. On a new session every wanted partition is
   * "added"; later, only the difference. Call {@link commitChanges} once the request has been answered
   * without a session error.
   */
  pendingChanges(): SessionChanges {
    const added: TopicIdPartition[] = [];
    const forgottenByTopic = new Map<string, number[]>();
    for (const [key, p] of this.wanted) if (this.isNew || !this.held.has(key)) added.push(p);
    if (!this.isNew) {
      for (const [key, p] of this.held) {
        if (this.wanted.has(key)) continue;
        const list = forgottenByTopic.get(p.topicId) ?? [];
        list.push(p.partition);
        forgottenByTopic.set(p.topicId, list);
      }
    }
    const forgotten = [...forgottenByTopic].map(([topicId, partitions]) => ({ topicId, partitions }));
    return { added, forgotten };
  }

  /** The request built from `changes` succeeded: the broker's session now matches them. */
  commitChanges(changes: SessionChanges): void {
    if (this.isNew) this.held.clear();
    for (const p of changes.added) this.held.set(tpKey(p.topicId, p.partition), p);
    for (const f of changes.forgotten)
      for (const part of f.partitions) this.held.delete(tpKey(f.topicId, part));
  }

  /** A request was answered (with or without a non-session error): the epoch moves on. */
  advance(): void {
    this.nextEpoch = this.nextEpoch >= MAX_EPOCH ? 1 : this.nextEpoch + 1;
  }

  /** SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH or a broken connection: open a new session next. */
  reset(): void {
    this.nextEpoch = INITIAL_EPOCH;
    this.held.clear();
  }
}
