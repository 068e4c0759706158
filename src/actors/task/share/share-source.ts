/**
 * What a share task runner needs from the share-group member it reads through. A task either has a
 * member of its own or a lease on the member its connector shares on this worker
 * (`share.member.scope`, see connector/share-member.ts); the runner cannot tell the two apart.
 */
import type { AcknowledgeType } from '../../../kafka/share/ack-batches.js';
import type { PartitionAckResult, PollOptions, ShareRecord } from '../../../kafka/share/share-consumer.js';

export interface ShareSource {
  /** Joins the group (once per member): resolves once in it; rejects for a missing topic or no access. */
  subscribe(topics: readonly string[]): Promise<void>;
  /** True when RENEW acknowledgements can work with every leader (Kafka ≥ 4.2). */
  renewSupported(): Promise<boolean>;
  /** The next batch of acquired records, or [] after `maxWaitMs`. */
  poll(options?: PollOptions): Promise<ShareRecord[]>;
  /**
   * Records already fetched and waiting for a later poll, taken without fetching, or undefined. Their
   * locks run while they wait, unrenewed: the runner takes them into batches it supervises.
   */
  takeReady?(): ShareRecord[] | undefined;
  /** Acknowledges records this source handed out; the promise reports per partition and never rejects. */
  acknowledge(records: readonly ShareRecord[], type: AcknowledgeType): Promise<PartitionAckResult[]>;
  /**
   * When the ShareFetch that acquired a poll() result was sent (`Date.now()`), when known: records can
   * wait for a poll while their locks run.
   */
  acquiredAt?(records: readonly ShareRecord[]): number | undefined;
  /** The broker's AcquisitionLockTimeoutMs, once a fetch reported it. */
  readonly acquisitionLockTimeoutMs: number | undefined;
  /** This task is done with the source (a member of its own leaves the group). */
  close(): Promise<void>;
}
