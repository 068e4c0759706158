/**
 * Acknowledgements on their way to the broker: one {@link AckEntry} per partition per `acknowledge()`
 * call (or per GAP / REJECT / RELEASE the consumer makes itself), queued on its leader's session,
 * merged with the others into one request's wire batches, and settled exactly once with what the
 * broker said. The request builders (share-fetcher.ts, acknowledger.ts) decide when; this module is
 * everything they do to the entries themselves.
 */
import { SharesinkError } from '../../errors.js';
import type { AcknowledgementBatch } from '../protocol/messages/share-acknowledge.js';
import { buildAckBatches, type AcknowledgeType } from './ack-batches.js';
import { tpKey, type TopicIdPartition } from './share-session.js';

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
      // several paths may settle an entry (answer, failure, close): the first one is its outcome
      if (settled) return;
      settled = true;
      const r = { topic: tp.topic, partition: tp.partition, type, offsets, error };
      onSettled?.(r);
      resolve(r);
    },
  };
}

export function settleAll(entries: readonly AckEntry[], err: SharesinkError | null): void {
  for (const e of entries) e.settle(err);
}

/** Settles `entries` with what a request threw; a non-sharesink error counts as a connection failure. */
export function failAll(entries: readonly AckEntry[], thrown: unknown): void {
  settleAll(entries, asSharesinkError(thrown));
}

/** The entries per tpKey, so a response's per-partition answers settle exactly their entries. */
export function indexEntries(entries: readonly AckEntry[]): Map<string, AckEntry[]> {
  const m = new Map<string, AckEntry[]>();
  for (const e of entries) {
    const key = tpKey(e.tp.topicId, e.tp.partition);
    let list = m.get(key);
    if (!list) m.set(key, (list = []));
    list.push(e);
  }
  return m;
}

/** Acknowledgement batches per topic id and partition, ready to put into a request. */
export type AckPlan = Map<string, Map<number, AcknowledgementBatch[]>>;

/** Merges the entries of each partition into wire batches (one request's worth). */
export function planAcks(entries: readonly AckEntry[]): AckPlan {
  const byPartition = new Map<string, AckEntry[]>();
  for (const e of entries) {
    const key = tpKey(e.tp.topicId, e.tp.partition);
    const list = byPartition.get(key);
    if (list) list.push(e);
    else byPartition.set(key, [e]);
  }
  const plan: AckPlan = new Map();
  for (const list of byPartition.values()) {
    const tp = list[0]!.tp;
    let parts = plan.get(tp.topicId);
    if (!parts) plan.set(tp.topicId, (parts = new Map()));
    parts.set(tp.partition, partitionBatches(list));
  }
  return plan;
}

/**
 * The wire batches of one partition's entries. One entry (one put's batch of the partition) goes as
 * its offsets are; entries of one type (puts accepted one after the other) merge into one offset list
 * with that type; only mixed types need a type per offset.
 */
function partitionBatches(list: readonly AckEntry[]): AcknowledgementBatch[] {
  const first = list[0]!;
  if (list.length === 1) return buildAckBatches(first.offsets, first.code);
  const oneCode = list.every((e) => e.code === first.code);
  const offsets: number[] = [];
  const codes: number[] = [];
  for (const { offsets: own, code } of list) {
    for (let k = 0; k < own.length; k++) {
      offsets.push(own[k]!);
      if (!oneCode) codes.push(code);
    }
  }
  return buildAckBatches(offsets, oneCode ? first.code : codes);
}

function asSharesinkError(err: unknown): SharesinkError {
  if (err instanceof SharesinkError) return err;
  return new SharesinkError('SHARESINK_KAFKA_CONNECTION', (err as Error).message ?? String(err), {
    cause: err,
  });
}
