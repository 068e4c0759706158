/**
 * The fetch path of one share session: builds a ShareFetch (session changes and piggy-backed
 * acknowledgements), sends it, settles the acknowledgements it carried, and returns the acquired
 * records with what the answer said about the consumer (a {@link FetchResult}); the consumer applies it.
 */
import { performance } from 'node:perf_hooks';
import { KafkaError } from '../errors/kafka-errors.js';
import type {
  AcquiredRecords,
  ShareFetchPartition,
  ShareFetchResponse,
  ShareFetchTopic,
} from '../protocol/messages/share-fetch.js';
import { selectAcquired } from './acquired-records.js';
import { failAll, indexEntries, planAcks, settleAll, type AckEntry } from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';
import { OffsetSet } from './offset-set.js';
import type { PartitionDirectory } from './partition-directory.js';
import { emptyOutcome, type AutoAck, type RequestOutcome } from './request-outcome.js';
import { METADATA_ERRORS, topLevelError } from './share-error-responses.js';
import type { ShareRecord } from './share-record.js';
import type { FetchAsk } from './fetch-window.js';
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

/** What a fetch reads: the wire, the member, the partitions' names and ids. */
export interface FetchContext {
  readonly transport: ShareTransport;
  readonly groupId: string;
  readonly memberId: string;
  readonly dir: PartitionDirectory;
  readonly settings: FetchSettings;
}

/** The records one partition's answer acquired, in offset order. */
export interface AcquiredPartition {
  readonly key: string;
  readonly records: ShareRecord[];
}

export interface FetchResult extends RequestOutcome {
  readonly acquired: AcquiredPartition[];
  /** Records acquired, over every partition. */
  readonly recordCount: number;
  readonly autoAcks: AutoAck[];
  /** Round trip of an answered fetch, for the metrics; undefined when the request was void. */
  readonly latencyMs: number | undefined;
}

/**
 * One ShareFetch on `ch`'s session, carrying the terminal acknowledgements pending there (unless the
 * session is new: acknowledgements cannot open one). A wire failure resets the session, settles the
 * carried acknowledgements with it, and throws.
 */
export async function fetchOnce(
  ctx: FetchContext,
  ch: NodeChannel,
  maxWaitMs: number,
  queuedAt: number,
  ask: FetchAsk = ctx.settings,
): Promise<FetchResult> {
  const { settings } = ctx;
  const session = ch.session;
  const changes = session.pendingChanges();
  const acks = session.isNew ? [] : ch.takeTerminal();
  const epoch = session.epoch;
  const started = performance.now();
  const sentAt = traceNow();
  let res: ShareFetchResponse;
  try {
    res = await ctx.transport.shareFetch(ch.nodeId, {
      groupId: ctx.groupId,
      memberId: ctx.memberId,
      shareSessionEpoch: epoch,
      maxWaitMs,
      minBytes: settings.minBytes,
      maxBytes: ask.maxBytes,
      maxRecords: ask.maxRecords,
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
  const result: FetchResult = {
    ...emptyOutcome(),
    answered: true,
    acquired: [],
    recordCount: 0,
    autoAcks: [],
    latencyMs: undefined,
  };
  result.topLevelError = topLevelError(ch, res.errorCode, res.errorMessage, 'ShareFetch', acks);
  if (result.topLevelError !== undefined) {
    trace(ch, epoch, queuedAt, sentAt, maxWaitMs, acks, 0, res.errorCode);
    return result;
  }
  session.commitChanges(changes);
  session.advance();
  if (res.acquisitionLockTimeoutMs > 0) result.lockTimeoutMs = res.acquisitionLockTimeoutMs;
  ch.backoffUntil = 0;
  await readResponse(ctx, res, acks, result);
  trace(ch, epoch, queuedAt, sentAt, maxWaitMs, acks, result.recordCount, 0);
  return { ...result, latencyMs };
}

/**
 * Marks acquired records outstanding (until finally acknowledged, or released at close) and lists them
 * for the polls: the consumer's hand-out of a fetch's records.
 */
export function handOut(
  acquired: readonly AcquiredPartition[],
  outstanding: Map<string, OffsetSet>,
): ShareRecord[] {
  // one partition's records (the usual answer) are handed out as the array they came in
  const delivered: ShareRecord[] = acquired.length === 1 ? acquired[0]!.records : [];
  for (const { key, records } of acquired) {
    let out = outstanding.get(key);
    if (!out) outstanding.set(key, (out = new OffsetSet()));
    for (let i = 0; i < records.length; i++) {
      out.add(records[i]!.offset);
      if (delivered !== records) delivered.push(records[i]!);
    }
  }
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

/** Settles the carried acknowledgements per partition and collects the acquired records into `result`. */
async function readResponse(
  ctx: FetchContext,
  res: ShareFetchResponse,
  acks: AckEntry[],
  result: FetchResult & { recordCount: number },
): Promise<void> {
  const byPartition = indexEntries(acks);
  for (const topic of res.responses) {
    const topicName = ctx.dir.topicName(topic.topicId);
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
        const topicOrId = topicName ?? topic.topicId;
        const error = new KafkaError(p.errorCode, {
          api: 'ShareFetch',
          brokerMessage: p.errorMessage,
          subject: `${topicOrId}-${p.partitionIndex}`,
        });
        if (METADATA_ERRORS.has(p.errorCode)) result.metadataStale = true;
        result.partitionErrors.push({ error, topic: topicOrId, partition: p.partitionIndex });
        continue;
      }
      if (p.acquiredRecords.length === 0 || topicName === undefined) continue;
      await collect(ctx, topic.topicId, topicName, p.partitionIndex, p.records, p.acquiredRecords, result);
    }
  }
  // partitions the broker did not mention: nothing contradicts success of the request
  for (const rest of byPartition.values()) settleAll(rest, null);
}

async function collect(
  ctx: FetchContext,
  topicId: string,
  topic: string,
  partition: number,
  bytes: Buffer,
  acquired: readonly AcquiredRecords[],
  result: FetchResult & { recordCount: number },
): Promise<void> {
  const key = tpKey(topicId, partition);
  const tp = ctx.dir.assigned.get(key) ?? { topicId, topic, partition };
  let selection;
  try {
    selection = selectAcquired(await ctx.transport.decodeRecords(bytes, topic, partition), acquired);
  } catch (cause) {
    // undecodable data is poison for every member: rejected rather than looped on redelivery
    const offsets: number[] = [];
    for (const r of acquired) for (let o = r.firstOffset; o <= r.lastOffset; o++) offsets.push(o);
    result.autoAcks.push({ tp, type: 'reject', offsets, cause });
    return;
  }
  // the decoder built them as ShareRecords already (one object per record from the bytes to the pool)
  result.acquired.push({ key, records: selection.records });
  result.recordCount += selection.records.length;
  if (selection.gaps.length > 0) result.autoAcks.push({ tp, type: 'gap', offsets: selection.gaps });
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
