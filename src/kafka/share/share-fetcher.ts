/**
 * The fetch path of one share session: builds a ShareFetch (session changes and piggy-backed
 * acknowledgements), sends it, settles the acknowledgements it carried, and turns the acquired records
 * into {@link ShareRecord}s. The consumer owns the decisions that affect the whole consumer (when to
 * fetch, top-level errors, partition errors, metadata); this module owns one request's worth of work.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { KafkaError } from '../errors/kafka-errors.js';
import type {
  AcquiredRecords,
  ShareFetchPartition,
  ShareFetchResponse,
  ShareFetchTopic,
} from '../protocol/messages/share-fetch.js';
import { AckCode } from './ack-batches.js';
import { selectAcquired } from './acquired-records.js';
import {
  failAll,
  indexEntries,
  newAckEntry,
  planAcks,
  settleAll,
  type AckEntry,
  type PartitionAckResult,
} from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';
import { OffsetSet } from './offset-set.js';
import type { PartitionDirectory } from './partition-directory.js';
import type { ShareRecord } from './share-record.js';
import { tpKey, type SessionChanges } from './share-session.js';
import { publishShareRequest, shareRequestChannel, traceNow } from './share-trace.js';
import type { ShareTransport } from './transport.js';

/** The ShareFetch fields that stay the same from request to request. */
export interface FetchSettings {
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly maxRecords: number;
  readonly batchSize: number;
  /** ShareAcquireMode: 0 batch_optimized, 1 record_limit. */
  readonly acquireMode: number;
}

export interface FetcherHost {
  readonly transport: ShareTransport;
  readonly groupId: string;
  readonly memberId: string;
  readonly log: Logger;
  readonly dir: PartitionDirectory;
  /** Offsets handed out and not yet finally acknowledged, per tpKey; the fetcher adds what it hands out. */
  readonly outstanding: Map<string, OffsetSet>;
  /** Handles a top-level error code; false when the request's work is void. */
  topLevelOk(ch: NodeChannel, code: number, message: string | null, api: string, acks: AckEntry[]): boolean;
  onPartitionError(code: number, message: string | null, topic: string, partition: number): void;
  onLockTimeout(ms: number): void;
  onFetched(latencyMs: number, records: number): void;
  countAck(r: PartitionAckResult): void;
}

/**
 * One ShareFetch on `ch`'s session, carrying the terminal acknowledgements pending there (unless the
 * session is new: acknowledgements cannot open one). Resolves with the records it acquired ([] for
 * none); a wire failure resets the session, settles the carried acknowledgements with it, and throws.
 */
export async function fetchOnce(
  host: FetcherHost,
  ch: NodeChannel,
  settings: FetchSettings,
  maxWaitMs: number,
  queuedAt: number,
): Promise<ShareRecord[]> {
  const session = ch.session;
  const changes = session.pendingChanges();
  const acks = session.isNew ? [] : ch.takeTerminal();
  const epoch = session.epoch;
  const started = performance.now();
  const sentAt = traceNow();
  let res: ShareFetchResponse;
  try {
    res = await host.transport.shareFetch(ch.nodeId, {
      groupId: host.groupId,
      memberId: host.memberId,
      shareSessionEpoch: epoch,
      maxWaitMs,
      minBytes: settings.minBytes,
      maxBytes: settings.maxBytes,
      maxRecords: settings.maxRecords,
      batchSize: settings.batchSize,
      shareAcquireMode: settings.acquireMode,
      isRenewAck: false,
      topics: requestTopics(changes, acks),
      forgottenTopicsData: changes.forgotten,
    });
  } catch (err) {
    trace(ch, epoch, queuedAt, sentAt, maxWaitMs, acks, 0, -1);
    session.reset();
    failAll(acks, err);
    throw err;
  }
  const latencyMs = performance.now() - started;
  if (!host.topLevelOk(ch, res.errorCode, res.errorMessage, 'ShareFetch', acks)) {
    trace(ch, epoch, queuedAt, sentAt, maxWaitMs, acks, 0, res.errorCode);
    return [];
  }
  session.commitChanges(changes);
  session.advance();
  if (res.acquisitionLockTimeoutMs > 0) host.onLockTimeout(res.acquisitionLockTimeoutMs);
  ch.backoffUntil = 0;
  const delivered = await handleResponse(host, ch, res, acks);
  host.onFetched(latencyMs, delivered.length);
  trace(ch, epoch, queuedAt, sentAt, maxWaitMs, acks, delivered.length, 0);
  return delivered;
}

/** Topics[] of the request: partitions the session does not hold yet, and partitions with acks. */
function requestTopics(changes: SessionChanges, acks: readonly AckEntry[]): ShareFetchTopic[] {
  const topics = new Map<string, Map<number, ShareFetchPartition>>();
  const partitionOf = (topicId: string, partition: number): ShareFetchPartition => {
    let parts = topics.get(topicId);
    if (!parts) topics.set(topicId, (parts = new Map()));
    let p = parts.get(partition);
    if (!p) parts.set(partition, (p = { partitionIndex: partition, acknowledgementBatches: [] }));
    return p;
  };
  for (const p of changes.added) partitionOf(p.topicId, p.partition);
  for (const [topicId, parts] of planAcks(acks)) {
    for (const [partition, batches] of parts)
      partitionOf(topicId, partition).acknowledgementBatches = batches;
  }
  const out: ShareFetchTopic[] = [];
  for (const [topicId, parts] of topics) out.push({ topicId, partitions: [...parts.values()] });
  return out;
}

/** Settles the carried acknowledgements per partition and collects the acquired records. */
async function handleResponse(
  host: FetcherHost,
  ch: NodeChannel,
  res: ShareFetchResponse,
  acks: AckEntry[],
): Promise<ShareRecord[]> {
  const byPartition = indexEntries(acks);
  const delivered: ShareRecord[] = [];
  for (const topic of res.responses) {
    const topicName = host.dir.topicName(topic.topicId);
    for (const p of topic.partitions) {
      const key = tpKey(topic.topicId, p.partitionIndex);
      const entries = byPartition.get(key);
      if (entries) {
        const ackErr =
          p.acknowledgeErrorCode === 0
            ? null
            : new KafkaError(p.acknowledgeErrorCode, {
                api: 'ShareFetch',
                brokerMessage: p.acknowledgeErrorMessage,
                subject: `${topicName ?? topic.topicId}-${p.partitionIndex}`,
              });
        settleAll(entries, ackErr);
        byPartition.delete(key);
      }
      if (p.errorCode !== 0) {
        host.onPartitionError(p.errorCode, p.errorMessage, topicName ?? topic.topicId, p.partitionIndex);
        continue;
      }
      if (p.acquiredRecords.length === 0 || topicName === undefined) continue;
      await collect(
        host,
        ch,
        topic.topicId,
        topicName,
        p.partitionIndex,
        p.records,
        p.acquiredRecords,
        delivered,
      );
    }
  }
  // partitions the broker did not mention: nothing contradicts success of the request
  for (const rest of byPartition.values()) settleAll(rest, null);
  return delivered;
}

async function collect(
  host: FetcherHost,
  ch: NodeChannel,
  topicId: string,
  topic: string,
  partition: number,
  bytes: Buffer,
  acquired: readonly AcquiredRecords[],
  into: ShareRecord[],
): Promise<void> {
  const key = tpKey(topicId, partition);
  const tp = host.dir.assigned.get(key) ?? { topicId, topic, partition };
  let out = host.outstanding.get(key);
  if (!out) host.outstanding.set(key, (out = new OffsetSet()));
  let selection;
  try {
    selection = selectAcquired(await host.transport.decodeRecords(bytes, topic, partition), acquired);
  } catch (err) {
    // undecodable data is poison for every member: reject it rather than loop on redelivery
    const offsets: number[] = [];
    for (const r of acquired) for (let o = r.firstOffset; o <= r.lastOffset; o++) offsets.push(o);
    host.log.error({ err, topic, partition, offsets: offsets.length }, 'undecodable records rejected');
    ch.terminal.push(newAckEntry(tp, 'reject', AckCode.reject, offsets, (r) => host.countAck(r)));
    return;
  }
  // the decoder built them as ShareRecords already (one object per record from the bytes to the pool)
  const records = selection.records;
  for (let i = 0; i < records.length; i++) {
    out.add(records[i]!.offset);
    into.push(records[i]!);
  }
  if (selection.gaps.length > 0) {
    ch.terminal.push(newAckEntry(tp, 'gap', AckCode.gap, selection.gaps, (r) => host.countAck(r)));
  }
}

function trace(
  ch: NodeChannel,
  epoch: number,
  queuedAt: number,
  sentAt: number,
  maxWaitMs: number,
  acks: readonly AckEntry[],
  records: number,
  errorCode: number,
): void {
  if (!shareRequestChannel.hasSubscribers) return;
  let ackedOffsets = 0;
  for (const a of acks) ackedOffsets += a.offsets.length;
  publishShareRequest({
    api: 'ShareFetch',
    nodeId: ch.nodeId,
    epoch,
    queuedAt: queuedAt || sentAt,
    sentAt,
    answeredAt: traceNow(),
    maxWaitMs,
    ackedOffsets,
    records,
    renew: false,
    errorCode,
  });
}
