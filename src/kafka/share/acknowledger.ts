/**
 * Sending acknowledgements in a ShareAcknowledge request, and closing a share session. The consumer
 * owns the decisions that affect the whole consumer (top-level errors, lock duration, metadata); this
 * module builds the request, applies the per-partition answers, and settles every entry exactly once.
 */
import { KafkaError } from '../errors/kafka-errors.js';
import { AckCode } from './ack-batches.js';
import {
  failAll,
  indexEntries,
  newAckEntry,
  planAcks,
  settleAll,
  type AckEntry,
  type PartitionAckResult,
} from './ack-entries.js';
import type { OffsetSet } from './offset-set.js';
import type { PartitionDirectory } from './partition-directory.js';
import type { NodeChannel } from './node-channel.js';
import { METADATA_ERRORS } from './share-error-responses.js';
import { ConsumerClosedError, SessionResetError } from './share-errors.js';
import { FINAL_EPOCH, tpKey } from './share-session.js';
import type { ShareTransport } from './transport.js';
import { publishShareRequest, shareRequestChannel, traceNow } from './share-trace.js';

export interface AcknowledgerHost {
  readonly transport: ShareTransport;
  readonly groupId: string;
  readonly memberId: string;
  topicName(topicId: string): string | undefined;
  /** Handles a top-level error code of a request on `ch`; false when the request's work is void. */
  topLevelOk(
    ch: NodeChannel,
    code: number,
    message: string | null,
    api: string,
    entries: AckEntry[],
  ): boolean;
  onLockTimeout(ms: number): void;
  onMetadataStale(): void;
}

const resetError = (ch: NodeChannel) =>
  new SessionResetError(`the share session with broker ${ch.nodeId} was reset`);

/** Sends what `ch` has pending: terminal acknowledgements, then renewals (IsRenewAck), each in its own request. */
export async function sendAcks(host: AcknowledgerHost, ch: NodeChannel, queuedAt = 0): Promise<void> {
  const terminal = ch.takeTerminal();
  const renew = ch.takeRenew();
  if (ch.session.isNew) {
    settleAll(terminal, resetError(ch));
    settleAll(renew, resetError(ch));
    return;
  }
  if (terminal.length > 0) await acknowledgeRequest(host, ch, terminal, false, ch.session.epoch, queuedAt);
  // the terminal request may have reset the session; renewals cannot open a new one
  if (renew.length === 0) return;
  if (ch.session.isNew) settleAll(renew, resetError(ch));
  else await acknowledgeRequest(host, ch, renew, true, ch.session.epoch, queuedAt);
}

/**
 * Queues a RELEASE of every offset still outstanding (handed out or waiting for a poll) on its leader's
 * session, for a consumer closing: other members get the records at once rather than after the lock.
 */
export function releaseOutstanding(
  outstanding: Map<string, OffsetSet>,
  dir: PartitionDirectory,
  channels: Map<number, NodeChannel>,
  onResult: (r: PartitionAckResult) => void,
): void {
  for (const [key, offsets] of outstanding) {
    if (offsets.size === 0) continue;
    const tp = dir.partition(key);
    const leader = dir.leaderOf(key);
    const ch = leader === undefined ? undefined : channels.get(leader);
    if (!tp || !ch) continue;
    ch.terminal.push(newAckEntry(tp, 'release', AckCode.release, [...offsets], onResult));
    offsets.clear();
  }
}

/** Applies the final acknowledgements and closes the session (epoch -1): the broker releases the rest. */
export async function closeSession(host: AcknowledgerHost, ch: NodeChannel): Promise<void> {
  const terminal = ch.takeTerminal();
  settleAll(ch.takeRenew(), new ConsumerClosedError());
  if (ch.session.isNew) {
    settleAll(terminal, resetError(ch));
    return;
  }
  await acknowledgeRequest(host, ch, terminal, false, FINAL_EPOCH);
}

async function acknowledgeRequest(
  host: AcknowledgerHost,
  ch: NodeChannel,
  entries: AckEntry[],
  isRenew: boolean,
  epoch: number,
  queuedAt = 0,
): Promise<void> {
  const plan = planAcks(entries);
  const sentAt = traceNow();
  let res;
  try {
    res = await host.transport.shareAcknowledge(ch.nodeId, {
      groupId: host.groupId,
      memberId: host.memberId,
      shareSessionEpoch: epoch,
      isRenewAck: isRenew,
      topics: [...plan].map(([topicId, parts]) => ({
        topicId,
        partitions: [...parts].map(([partitionIndex, acknowledgementBatches]) => ({
          partitionIndex,
          acknowledgementBatches,
        })),
      })),
    });
  } catch (err) {
    traceAck(ch, epoch, queuedAt, sentAt, entries, isRenew, -1);
    ch.session.reset();
    failAll(entries, err);
    return;
  }
  traceAck(ch, epoch, queuedAt, sentAt, entries, isRenew, res.errorCode);
  if (epoch === FINAL_EPOCH) {
    ch.session.reset();
    if (res.errorCode !== 0) {
      settleAll(
        entries,
        new KafkaError(res.errorCode, { api: 'ShareAcknowledge', brokerMessage: res.errorMessage }),
      );
      return;
    }
  } else if (!host.topLevelOk(ch, res.errorCode, res.errorMessage, 'ShareAcknowledge', entries)) {
    return;
  } else {
    ch.session.advance();
  }
  if (res.acquisitionLockTimeoutMs > 0) host.onLockTimeout(res.acquisitionLockTimeoutMs);
  const byPartition = indexEntries(entries);
  for (const topic of res.responses) {
    for (const p of topic.partitions) {
      const key = tpKey(topic.topicId, p.partitionIndex);
      const err =
        p.errorCode === 0
          ? null
          : new KafkaError(p.errorCode, {
              api: 'ShareAcknowledge',
              brokerMessage: p.errorMessage,
              subject: `${host.topicName(topic.topicId) ?? topic.topicId}-${p.partitionIndex}`,
            });
      if (err && METADATA_ERRORS.has(p.errorCode)) host.onMetadataStale();
      for (const e of byPartition.get(key) ?? []) e.settle(err);
      byPartition.delete(key);
    }
  }
  // partitions the broker did not mention: nothing contradicts the request's success
  for (const rest of byPartition.values()) settleAll(rest, null);
}

function traceAck(
  ch: NodeChannel,
  epoch: number,
  queuedAt: number,
  sentAt: number,
  entries: readonly AckEntry[],
  renew: boolean,
  errorCode: number,
): void {
  if (!shareRequestChannel.hasSubscribers) return;
  let ackedOffsets = 0;
  for (const e of entries) ackedOffsets += e.offsets.length;
  publishShareRequest({
    api: 'ShareAcknowledge',
    nodeId: ch.nodeId,
    epoch,
    queuedAt: queuedAt || sentAt,
    sentAt,
    answeredAt: traceNow(),
    maxWaitMs: 0,
    ackedOffsets,
    records: 0,
    renew,
    errorCode,
  });
}
