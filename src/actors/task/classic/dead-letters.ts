/**
 * The dead-letter step of a classic task under errors.tolerance=all: the failed records of a batch go
 * to `errors.deadletterqueue.topic.name` before the batch is committed, or are logged and skipped when
 * no topic is set.
 *
 * A stop bounds it. kafkajs retries a write that fails retriably (the topic deleted, its leader moving)
 * for as long as its retry settings allow, about 8 s by default, and cannot be cancelled: a stop that
 * waited for it would outlast the task's grace (task.shutdown.graceful.timeout.ms). A write still under
 * way when the grace has run out is given up on instead, and its batch is not committed, so its records
 * are read again, and dead-lettered again, by the partition's next owner: at least once. Should the
 * write still land later, those records stand twice in the dead-letter topic.
 */
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { RawRecord } from '../../../connect/raw-record.js';
import type { PutResult } from '../../../pool/protocol.js';
import type { ClassicTaskRunnerOptions } from './options.js';
import type { ClassicTaskCounters } from './records.js';
import { deadLetterQueueFor, type ClassicDeadLetterQueue } from '../../errors/dead-letter-reporter.js';
import { logFailedRecords } from '../../errors/log-reporter.js';
import { batchReason, type DeadLetterReason } from '../../errors/reasons.js';
import { TaskFailedError } from '../../errors/task-failed.js';
import { StopCuts } from './stop-cuts.js';

/** The part of a classic batch its dead-lettering reads. */
export interface DeadLetterWork {
  readonly id: string;
  readonly records: readonly RawRecord[];
  readonly lastPut: PutResult | undefined;
  /** Why records of the last put were bad, by batch index. */
  readonly reasons: Map<number, DeadLetterReason>;
}

export interface ClassicDeadLettersOptions {
  readonly task: Pick<
    ClassicTaskRunnerOptions,
    'connector' | 'taskId' | 'errors' | 'errorsLog' | 'brokers' | 'clientId'
  >;
  readonly counters: ClassicTaskCounters;
  readonly log: Logger;
  /** The task fails: a write that failed leaves records no one may skip. */
  readonly fail: (error: Error) => void;
}

export class ClassicDeadLetters {
  private queue: ClassicDeadLetterQueue | undefined;
  /** Writes under way, which the stop gives up on at the end of its grace. */
  private readonly cuts = new StopCuts();
  /** Writes given up on that kafkajs still retries, each settled quietly. */
  private readonly stillRetrying = new Set<Promise<void>>();

  constructor(private readonly o: ClassicDeadLettersOptions) {}

  /** Creates the topic when it is missing and connects the producer; nothing without a topic. */
  async start(kafka: Kafka): Promise<void> {
    this.queue = deadLetterQueueFor(kafka, this.o.task, this.o.log);
    await this.queue?.start();
  }

  /**
   * Dead-letters (or, without a topic, skips) the records at `indexes`. True once they are dealt with and
   * the batch may be committed; false when it must not be: the write failed (the task fails with it) or
   * the stop gave up on it.
   */
  async write(work: DeadLetterWork, indexes: readonly number[]): Promise<boolean> {
    const { counters, log } = this.o;
    const whole = batchReason(work.lastPut);
    const reasonOf = (i: number): DeadLetterReason => work.reasons.get(i) ?? whole;
    logFailedRecords(log, this.o.task.errorsLog, work.id, work.records, indexes, (i) => reasonOf(i).message);
    const queue = this.queue;
    if (queue === undefined) {
      log.warn({ batchId: work.id, records: indexes.length }, 'errors.tolerance=all: records skipped');
      counters.recordsSkipped += indexes.length;
      return true;
    }
    if (this.cuts.givenUp) return this.leftForNextOwner(work, indexes.length);
    const send = queue.send(work.records, indexes, reasonOf);
    let sent: number | 'cut';
    try {
      sent = await this.cuts.race(() => send);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const why = `could not write to dead letter topic ${queue.topic}: ${message}; offsets not committed`;
      this.o.fail(new TaskFailedError(why, { cause: err }));
      return false;
    }
    if (sent === 'cut') {
      const ended = send.then(
        () => undefined,
        () => undefined,
      );
      this.stillRetrying.add(ended);
      void ended.then(() => this.stillRetrying.delete(ended));
      return this.leftForNextOwner(work, indexes.length);
    }
    counters.recordsDeadLettered += sent;
    counters.recordsSkipped += indexes.length;
    return true;
  }

  /** The stop's grace has run out: writes under way are given up on, and no new one starts. */
  giveUp(): void {
    this.cuts.giveUp();
  }

  /** Disconnects the producer; again once each write given up on has ended, as kafkajs reconnects to retry it. */
  async close(): Promise<void> {
    const queue = this.queue;
    if (queue === undefined) return;
    const close = (): Promise<void> =>
      queue.close().catch((err: Error) => this.o.log.warn({ err: err.message }, 'dlq disconnect'));
    await close();
    for (const write of this.stillRetrying) void write.then(close);
  }

  private leftForNextOwner(work: DeadLetterWork, records: number): false {
    this.o.log.warn(
      { batchId: work.id, records, topic: this.queue?.topic },
      'dead-letter write given up at the end of the stop grace; batch not committed, its records will be read again',
    );
    return false;
  }
}
