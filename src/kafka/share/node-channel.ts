/**
 * Everything the consumer keeps per partition leader: the share session, the acknowledgements waiting to
 * be sent there, and a queue that keeps that session's requests strictly one at a time (the session
 * epoch makes concurrent requests invalid).
 */
import type { SharesinkError } from '../../errors.js';
import { buildAckBatches, type AcknowledgeType } from './ack-batches.js';
import type { AcknowledgementBatch } from '../protocol/messages/share-acknowledge.js';
import { FetchPacing } from './fetch-pacing.js';
import { ShareSession, tpKey, type TopicIdPartition } from './share-session.js';

/** The broker's answer for the acknowledgements of one partition from one `acknowledge()` call. */
export interface PartitionAckResult {
  readonly topic: string;
  readonly partition: number;
  readonly type: AcknowledgeType | 'gap';
  readonly offsets: readonly number[];
  /** null when the broker applied them; otherwise why not (e.g. INVALID_RECORD_STATE: the lock expired). */
  readonly error: SharesinkError | null;
}

/** Acknowledgements of one partition from one call, with the promise that reports their outcome. */
export interface AckEntry {
  readonly tp: TopicIdPartition;
  readonly type: AcknowledgeType | 'gap';
  readonly code: number;
  readonly offsets: number[];
  settle(error: SharesinkError | null): void;
  readonly result: Promise<PartitionAckResult>;
}

export function newAckEntry(
  tp: TopicIdPartition,
  type: AcknowledgeType | 'gap',
  code: number,
  offsets: number[],
  onSettled?: (r: PartitionAckResult) => void,
): AckEntry {
  let resolve!: (r: PartitionAckResult) => void;
  const result = new Promise<PartitionAckResult>((r) => (resolve = r));
  let settled = false;
  return {
    tp,
    type,
    code,
    offsets,
    result,
    settle(error) {
      if (settled) return;
      settled = true;
      const r = { topic: tp.topic, partition: tp.partition, type, offsets, error };
      onSettled?.(r);
      resolve(r);
    },
  };
}

/** Acknowledgement batches per topic id and partition, ready to put into a request. */
export type AckPlan = Map<string, Map<number, AcknowledgementBatch[]>>;

export class NodeChannel {
  readonly nodeId: number;
  readonly session: ShareSession;
  /** MaxWaitMs of this session's next ShareFetch. */
  readonly pacing = new FetchPacing();
  /** ACCEPT / RELEASE / REJECT / GAP waiting to be sent (piggy-backed on a fetch or in a ShareAcknowledge). */
  terminal: AckEntry[] = [];
  /** RENEW waiting to be sent; only ever in a ShareAcknowledge with IsRenewAck. */
  renew: AckEntry[] = [];
  /** A request of this session is queued or in flight (see ShareConsumer.pump). */
  busy = false;
  backoffUntil = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(nodeId: number) {
    this.nodeId = nodeId;
    this.session = new ShareSession(nodeId);
  }

  /** Runs `job` after every job queued before it; its failure does not stop later jobs. */
  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }

  takeTerminal(): AckEntry[] {
    const t = this.terminal;
    this.terminal = [];
    return t;
  }

  takeRenew(): AckEntry[] {
    const r = this.renew;
    this.renew = [];
    return r;
  }
}

/** Merges the entries of each partition into wire batches (one request's worth). */
export function planAcks(entries: readonly AckEntry[]): AckPlan {
  const byPartition = new Map<string, { tp: TopicIdPartition; offsets: number[]; codes: number[] }>();
  for (const e of entries) {
    const key = tpKey(e.tp.topicId, e.tp.partition);
    let acc = byPartition.get(key);
    if (!acc) byPartition.set(key, (acc = { tp: e.tp, offsets: [], codes: [] }));
    for (const o of e.offsets) {
      acc.offsets.push(o);
      acc.codes.push(e.code);
    }
  }
  const plan: AckPlan = new Map();
  for (const { tp, offsets, codes } of byPartition.values()) {
    let parts = plan.get(tp.topicId);
    if (!parts) plan.set(tp.topicId, (parts = new Map()));
    parts.set(tp.partition, buildAckBatches(offsets, codes));
  }
  return plan;
}
