/**
 * Sending acknowledgements in a ShareAcknowledge request, and closing a share session. This module
 * builds the request, applies the per-partition answers, settles every entry exactly once, and returns
 * what the answers said about the consumer (a {@link RequestOutcome}) for the consumer to apply.
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
import { emptyOutcome, mergeOutcome, type RequestOutcome } from './request-outcome.js';
import { METADATA_ERRORS, topLevelError } from './share-error-responses.js';
import { ConsumerClosedError, SessionResetError } from './share-errors.js';
import { FINAL_EPOCH, tpKey } from './share-session.js';
import type { ShareTransport } from './transport.js';
import { publishShareRequest, shareRequestChannel, traceNow } from './share-trace.js';

/** What an acknowledgement request reads: the wire, the member, the topics' names. */
export interface AckContext {
  readonly transport: ShareTransport;
  readonly groupId: string;
  readonly memberId: string;
  readonly dir: PartitionDirectory;
}

const resetError = (ch: NodeChannel) =>
  new SessionResetError(`the share session with broker ${ch.nodeId} was reset`);

/** Sends what `ch` has pending: terminal acknowledgements, then renewals (IsRenewAck), each in its own request. */
export async function sendAcks(ctx: AckContext, ch: NodeChannel, queuedAt = 0): Promise<RequestOutcome> {
  const terminal = ch.takeTerminal();
  const renew = ch.takeRenew();
  const outcome = emptyOutcome();
  if (ch.session.isNew) {
    settleAll(terminal, resetError(ch));
    settleAll(renew, resetError(ch));
    return outcome;
  }
  if (terminal.length > 0)
    mergeOutcome(outcome, await acknowledgeRequest(ctx, ch, terminal, false, ch.session.epoch, queuedAt));
  // the terminal request may have reset the session; renewals cannot open a new one
  if (renew.length === 0) return outcome;
  if (ch.session.isNew) settleAll(renew, resetError(ch));
  else mergeOutcome(outcome, await acknowledgeRequest(ctx, ch, renew, true, ch.session.epoch, queuedAt));
  return outcome;
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
    ch.addTerminal(newAckEntry(tp, 'release', AckCode.release, [...offsets], onResult));
    offsets.clear();
  }
}

/** Applies the final acknowledgements and closes the session (epoch -1): the broker releases the rest. */
export async function closeSession(ctx: AckContext, ch: NodeChannel): Promise<RequestOutcome> {
  const terminal = ch.takeTerminal();
  settleAll(ch.takeRenew(), new ConsumerClosedError());
  if (ch.session.isNew) {
    settleAll(terminal, resetError(ch));
    return emptyOutcome();
  }
  return acknowledgeRequest(ctx, ch, terminal, false, FINAL_EPOCH);
}

async function acknowledgeRequest(
  ctx: AckContext,
  ch: NodeChannel,
  entries: AckEntry[],
  isRenew: boolean,
  epoch: number,
  queuedAt = 0,
): Promise<RequestOutcome> {
  const plan = planAcks(entries);
  const sentAt = traceNow();
  const outcome = emptyOutcome();
  let res;
  try {
    res = await ctx.transport.shareAcknowledge(ch.nodeId, {
      groupId: ctx.groupId,
      memberId: ctx.memberId,
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
    return outcome;
  }
  traceAck(ch, epoch, queuedAt, sentAt, entries, isRenew, res.errorCode);
  if (epoch === FINAL_EPOCH) {
    ch.session.reset();
    if (res.errorCode !== 0) {
      settleAll(
        entries,
        new KafkaError(res.errorCode, { api: 'ShareAcknowledge', brokerMessage: res.errorMessage }),
      );
      return outcome;
    }
  } else {
    outcome.answered = true;
    outcome.topLevelError = topLevelError(ch, res.errorCode, res.errorMessage, 'ShareAcknowledge', entries);
    if (outcome.topLevelError !== undefined) return outcome;
    ch.session.advance();
  }
  if (res.acquisitionLockTimeoutMs > 0) outcome.lockTimeoutMs = res.acquisitionLockTimeoutMs;
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
              subject: `${ctx.dir.topicName(topic.topicId) ?? topic.topicId}-${p.partitionIndex}`,
            });
      if (err && METADATA_ERRORS.has(p.errorCode)) outcome.metadataStale = true;
      for (const e of byPartition.get(key) ?? []) e.settle(err);
      byPartition.delete(key);
    }
  }
  // partitions the broker did not mention: nothing contradicts the request's success
  for (const rest of byPartition.values()) settleAll(rest, null);
  return outcome;
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
