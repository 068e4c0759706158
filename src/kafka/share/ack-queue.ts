/**
 * Queues an application's acknowledgements on the sessions of their partitions' leaders: final types
 * with the terminal acks (the offsets stop being outstanding), RENEW with the renewals. Checks first
 * that every offset was handed out by this consumer and not finally acknowledged yet.
 */
import { AckCode, type AcknowledgeType } from './ack-batches.js';
import { newAckEntry, type AckEntry, type PartitionAckResult } from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';
import type { OffsetSet } from './offset-set.js';
import type { PartitionDirectory } from './partition-directory.js';
import type { RenewSupport } from './renew-support.js';
import { AckNotAllowedError, RenewUnsupportedError, SessionResetError } from './share-errors.js';
import type { AckTarget, ShareRecord } from './share-record.js';

export interface AckQueues {
  readonly dir: PartitionDirectory;
  readonly outstanding: Map<string, OffsetSet>;
  readonly channels: Map<number, NodeChannel>;
  readonly renewSupport: RenewSupport;
}

/**
 * The entries for acknowledging `target` as `type`, each queued on its leader's session (or settled
 * at once with SHARESINK_SHARE_SESSION_RESET when the partition has no known leader). Throws
 * {@link AckNotAllowedError} or {@link RenewUnsupportedError} before queueing anything of a partition.
 */
export function queueAcks(
  q: AckQueues,
  target: AckTarget,
  type: AcknowledgeType,
  onSettled: (r: PartitionAckResult) => void,
): AckEntry[] {
  const groups = q.dir.group(
    'offsets' in target ? target : Array.isArray(target) ? target : [target as ShareRecord],
  );
  const entries: AckEntry[] = [];
  for (const [key, { topic, partition, offsets }] of groups) {
    const tp = q.dir.partition(key)!;
    const out = q.outstanding.get(key);
    const bad = out ? out.missing(offsets) : offsets;
    if (bad.length > 0) throw new AckNotAllowedError(topic, partition, bad);
    const leader = q.dir.leaderOf(key);
    const channel = leader === undefined ? undefined : q.channels.get(leader);
    if (type === 'renew') {
      if (!channel || !q.renewSupport.at(channel.nodeId)) throw new RenewUnsupportedError(channel?.nodeId);
      const entry = newAckEntry(tp, type, AckCode.renew, offsets, onSettled);
      channel.renew.push(entry);
      entries.push(entry);
      continue;
    }
    for (let i = 0; i < offsets.length; i++) out!.delete(offsets[i]!);
    const entry = newAckEntry(tp, type, AckCode[type], offsets, onSettled);
    entries.push(entry);
    if (!channel) entry.settle(new SessionResetError(`${topic}-${partition} has no known leader`));
    else channel.addTerminal(entry);
  }
  return entries;
}
