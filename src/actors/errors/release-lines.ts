/**
 * What a share-mode task says when it gives records back to the broker, besides the "batch done" line:
 * - the put's error when a RetriableError released the batch (`share.retriable.action=release`, or the
 *   retries gave up): per batch, held back like the put-timeout lines (BurstLines: the first line of a
 *   cause, then one per 30 s with `repeatsLeftOut`), since an outage releases every batch alike;
 * - the records that were on their last delivery when released or when their lock expired: the broker
 *   archives them (or, with the group's `errors.deadletterqueue.topic.name`, dead-letters them), so
 *   they will not come back. One WARN per batch with the counts, never held back: records leave here.
 */
import type { Logger } from 'pino';
import { BurstLines } from '../../observability/burst-lines.js';
import type { PutResult } from '../../pool/protocol.js';

/** The group's `share.delivery.count.limit` and dead-letter topic, as far as they are known. */
export interface DeliveryLimit {
  readonly count: number;
  /** The group's `errors.deadletterqueue.topic.name`, when it has one. */
  readonly deadLetterTopic?: string | undefined;
}

interface ReleasedBatch {
  readonly id: string;
  readonly records: ReadonlyArray<{ readonly deliveryCount: number }>;
  readonly lastPut: PutResult | undefined;
}

export class ReleaseLines {
  readonly #log: Logger;
  readonly #bursts: BurstLines;
  readonly #limit: () => DeliveryLimit | undefined;

  constructor(log: Logger, limit: () => DeliveryLimit | undefined, now: () => number = Date.now) {
    this.#log = log;
    this.#limit = limit;
    this.#bursts = new BurstLines(now);
  }

  /** The batch ended RELEASEd; `stopping`: released by the task's stop, which says so itself. */
  released(batch: ReleasedBatch, stopping: boolean): void {
    const put = batch.lastPut;
    if (!stopping && put?.kind === 'retriable')
      this.#bursts.say(
        this.#log,
        'warn',
        'released-after-retriable',
        { batchId: batch.id, records: batch.records.length, error: put.message },
        'put failed with a RetriableError; batch released, the broker delivers it again (delivery count + 1)',
      );
    this.#lastDeliveries(batch.id, batch.records, 'released');
  }

  /** The batch's lock expired: its records go back to the broker as a release would. */
  expired(batchId: string, records: ReadonlyArray<{ readonly deliveryCount: number }>): void {
    this.#lastDeliveries(batchId, records, 'lock expired');
  }

  #lastDeliveries(
    batchId: string,
    records: ReadonlyArray<{ readonly deliveryCount: number }>,
    how: 'released' | 'lock expired',
  ): void {
    const limit = this.#limit();
    if (limit === undefined) return;
    const last = records.filter((r) => r.deliveryCount >= limit.count).length;
    if (last === 0) return;
    const fate =
      limit.deadLetterTopic === undefined
        ? 'the broker archives them (they are not delivered again)'
        : `the broker writes them to the dead-letter topic ${limit.deadLetterTopic}`;
    this.#log.warn(
      {
        batchId,
        records: records.length,
        atDeliveryLimit: last,
        deliveryLimit: limit.count,
        ...(limit.deadLetterTopic === undefined ? {} : { deadLetterTopic: limit.deadLetterTopic }),
      },
      `${last} of ${records.length} records ${how} on their last delivery (share.delivery.count.limit=${limit.count}): ${fate}`,
    );
  }
}
