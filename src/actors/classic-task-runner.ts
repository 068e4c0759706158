/**
 * One sink task in classic mode, Connect's WorkerSinkTask on a kafkajs consumer group: exclusive
 * partitions, offsets committed only after a successful put (at least once).
 *
 * kafkajs hands us one batch per partition fetch (`eachBatch`, several partitions at once); each becomes
 * one batch actor — the same pure batch machine as share mode, in mode `classic` — whose put runs on the
 * same PutPool. Where share mode acknowledges, classic mode commits, retries the same batch in place, or
 * applies `errors.tolerance`. kafkajs calls eachBatch for a partition again only after the previous call
 * returned, and fetches from the last resolved offset, so a batch that is not resolved is fetched again:
 * that is how a released batch (shutdown) comes back.
 */
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import { logFailedRecords, type ErrorLogOptions } from './errors/log-reporter.js';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Logger } from 'pino';
import type { RawRecord } from '../connect/raw-record.js';
import {
  classicConsumerSettings,
  createClassicKafka,
  isRejoinError,
  type ClassicClientOptions,
} from '../kafka/classic-consumer.js';
import {
  createBatchMachine,
  type AckDisposition,
  type BatchEffects,
  type BatchEvent,
  type BatchMachine,
  type BatchOutput,
} from '../machines/batch.js';
import type { PoolTask, PutPool } from '../pool/put-pool.js';
import type { Assignment, PutResult } from '../pool/protocol.js';
import { deadLetterQueueFor, type ClassicDeadLetterQueue } from './errors/dead-letter-reporter.js';
import { batchReason, putMessage, type DeadLetterReason } from './errors/reasons.js';
import { TaskFailedError } from './errors/task-failed.js';
import {
  errorCodeOf,
  failureMessage,
  nextRetryDelay,
  putVerdict,
  type ClassicErrorsOptions,
} from './errors/tolerance.js';
import { ClassicTaskCounters, classicRawRecords } from './classic-records.js';
import { RetryBackoff } from './errors/retry-backoff.js';

export type { ClassicErrorsOptions } from './errors/tolerance.js';

export interface ClassicTaskRunnerOptions extends Omit<ClassicClientOptions, 'logger'> {
  readonly connector: string;
  readonly taskId: number;
  readonly topics?: readonly string[];
  /** Matched against the topics that exist when the task starts (kafkajs does not re-evaluate it). */
  readonly topicsRegex?: RegExp;
  readonly groupId: string;
  /** Java consumer settings (`consumer.*` / `consumer.override.*` without the prefix). */
  readonly consumer?: Readonly<Record<string, string>>;
  readonly pool: PutPool;
  readonly poolTask: PoolTask;
  readonly logger: Logger;
  /**
   * `errors.*`. `retryTimeoutMs` > 0 bounds how long one batch is retried after RetriableErrors; 0 and -1
   * retry forever, as Connect's WorkerSinkTask does for put() whatever `errors.retry.timeout` says.
   */
  readonly errors?: ClassicErrorsOptions;
  /** Partitions whose batches are put at the same time. Default 4. */
  readonly maxInFlightBatches?: number;
  /** How long stop() lets running puts finish before it aborts them (uncommitted). Default 5000. */
  readonly shutdownGraceMs?: number;
  /** `errors.log.enable` / `errors.log.include.messages`. */
  readonly errorsLog?: ErrorLogOptions;
  /** Called once when the task fails. */
  readonly onFailure?: (error: Error) => void;
  /** XState inspection hook for the batch actors (e.g. a TransitionCounter's `inspect`). */
  readonly inspect?: ((event: InspectionEvent) => void) | undefined;
}

interface BatchWork {
  readonly id: string;
  readonly payload: EachBatchPayload;
  readonly records: readonly RawRecord[];
  /** Offset of the last delivered record; resolving it also resolves trailing control records. */
  readonly lastOffset: string;
  readonly actor: Actor<BatchMachine>;
  readonly heartbeat: NodeJS.Timeout;
  readonly settled: (output: BatchOutput | undefined) => void;
  /** Why records of the last attempt are bad, by batch index. */
  readonly reasons: Map<number, DeadLetterReason>;
  abort?: AbortController;
  lastPut?: PutResult;
  backoff?: RetryBackoff;
  retryingSince?: number;
  retryTimer?: NodeJS.Timeout | undefined;
  /** The group moved on (rebalance, expired member); eachBatch rethrows it so kafkajs rejoins. */
  groupError?: unknown;
}

export class ClassicTaskRunner {
  readonly counters = new ClassicTaskCounters();
  private readonly o: ClassicTaskRunnerOptions;
  private readonly log: Logger;
  private readonly machine: BatchMachine;
  private readonly batches = new Map<string, BatchWork>();
  private readonly tolerance: 'none' | 'all';
  private task: PoolTask;
  private assignmentVersion = 0;
  private consumer: Consumer | undefined;
  private dlq: ClassicDeadLetterQueue | undefined;
  private heartbeatMs = 3000;
  private seq = 0;
  private running = false;
  private paused = false;
  private stopping: Promise<void> | undefined;
  private failed: Error | undefined;

  constructor(options: ClassicTaskRunnerOptions) {
    if ((options.topics?.length ?? 0) === 0 && options.topicsRegex === undefined)
      throw new TypeError('ClassicTaskRunner needs topics or topicsRegex');
    this.o = options;
    this.log = options.logger.child({ connector: options.connector, task: options.taskId });
    this.tolerance = options.errors?.tolerance ?? 'none';
    this.task = options.poolTask;
    this.machine = createBatchMachine(this.effects());
  }

  get inFlight(): number {
    return this.batches.size;
  }

  /** The partitions this task owns; the version counts group joins (1 after the first). */
  get assignment(): Assignment | undefined {
    return this.task.assignment;
  }

  /** Joins the group and starts consuming; resolves once the first assignment is in. */
  async start(): Promise<void> {
    const { o } = this;
    const kafka = createClassicKafka({ ...o, logger: this.log });
    const settings = classicConsumerSettings(o.groupId, o.consumer);
    if (settings.ignored.length > 0)
      this.log.warn({ settings: settings.ignored }, 'consumer settings classic mode does not use');
    this.heartbeatMs = settings.config.heartbeatInterval ?? 3000;
    this.dlq = deadLetterQueueFor(kafka, o, this.log);
    await this.dlq?.start();
    const consumer = kafka.consumer(settings.config);
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => this.onAssignment(e.payload.memberAssignment));
    consumer.on(consumer.events.CRASH, (e) => {
      const { error, restart } = e.payload;
      if (restart) this.log.warn({ err: error.message }, 'consumer crashed; kafkajs restarts it');
      else this.fail(new TaskFailedError(`the consumer crashed: ${error.message}`, { cause: error }));
    });
    await consumer.connect();
    const topics: (string | RegExp)[] = [...(o.topics ?? [])];
    if (o.topicsRegex !== undefined) topics.push(o.topicsRegex);
    await consumer.subscribe({ topics, fromBeginning: settings.fromBeginning });
    this.running = true;
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: o.maxInFlightBatches ?? 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
    this.log.info({ topics: topics.map(String), group: o.groupId }, 'classic task started');
  }

  /**
   * Stops taking batches, lets running puts finish within the grace time (those commit), aborts the rest
   * without committing (the next owner of the partition gets them again), then leaves the group.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.running = false;
    this.pauseAll();
    for (const w of this.batches.values()) if (w.retryTimer !== undefined) this.cancelRetry(w);
    const deadline = Date.now() + (this.o.shutdownGraceMs ?? 5000);
    while (this.batches.size > 0 && Date.now() < deadline) await sleep(Math.min(50, deadline - Date.now()));
    for (const w of this.batches.values()) w.actor.send({ type: 'SHUTDOWN' });
    while (this.batches.size > 0) await sleep(20);
    await this.consumer
      ?.disconnect()
      .catch((err: Error) => this.log.warn({ err: err.message }, 'disconnect'));
    await this.dlq?.close().catch((err: Error) => this.log.warn({ err: err.message }, 'dlq disconnect'));
    this.log.info(this.counters.snapshot(), 'classic task stopped');
  }

  private onAssignment(memberAssignment: Record<string, number[]>): void {
    const partitions = [];
    for (const [topic, ps] of Object.entries(memberAssignment))
      for (const partition of ps) partitions.push({ topic, partition });
    // a new version makes every pool thread diff it on its next put: close(revoked), open(assigned)
    this.task = { ...this.o.poolTask, assignment: { version: ++this.assignmentVersion, partitions } };
    this.log.info({ partitions: partitions.length, version: this.assignmentVersion }, 'partitions assigned');
    // a paused task stays paused across rebalances, including for topics it did not own before
    if (this.paused) this.pauseAll();
  }

  /** Stops fetching (kafkajs `pause`); batches already taken finish and commit. For REST pause. */
  pause(): void {
    this.paused = true;
    this.pauseAll();
  }

  resume(): void {
    this.paused = false;
    const topics = new Set((this.task.assignment?.partitions ?? []).map((tp) => tp.topic));
    if (topics.size > 0 && this.running) this.consumer?.resume([...topics].map((topic) => ({ topic })));
  }

  private pauseAll(): void {
    const topics = new Set((this.task.assignment?.partitions ?? []).map((tp) => tp.topic));
    if (topics.size === 0) return;
    try {
      this.consumer?.pause([...topics].map((topic) => ({ topic })));
    } catch {
      // kafkajs refuses once the consumer stopped, when there is nothing left to pause
    }
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    if (!this.running || !payload.isRunning() || payload.isStale()) return;
    const records = classicRawRecords(payload.batch);
    const last = payload.batch.messages[payload.batch.messages.length - 1];
    if (last === undefined) return;
    const id = `${this.o.connector}-${this.o.taskId}-${++this.seq}`;
    this.counters.onBatch(records.length, records);
    let work!: BatchWork;
    const settled = new Promise<BatchOutput | undefined>((resolve) => {
      const actor = createActor(this.machine, {
        input: { batchId: id, recordCount: records.length, mode: 'classic', acquiredAt: Date.now() },
        inspect: this.o.inspect,
      });
      // kafkajs only heartbeats between batches; a long put or retry must keep the membership alive
      const heartbeat = setInterval(() => {
        payload.heartbeat().catch((err: unknown) => this.onGroupError(work, err));
      }, this.heartbeatMs / 2);
      work = {
        id,
        payload,
        records,
        lastOffset: last.offset,
        actor,
        heartbeat,
        settled: resolve,
        reasons: new Map(),
      };
    });
    this.batches.set(id, work);
    work.actor.subscribe({
      complete: () => this.finish(work, work.actor.getSnapshot().output),
      error: (err) => {
        this.log.error({ batchId: id, err }, 'batch actor failed');
        this.finish(work, undefined);
      },
    });
    work.actor.start();
    work.actor.send({ type: 'DISPATCH' });
    await settled;
    if (work.groupError !== undefined) throw work.groupError;
  }

  private onGroupError(work: BatchWork, err: unknown): void {
    if (!isRejoinError(err)) return; // kafkajs reconnects on its own
    work.groupError ??= err;
    // a retry loop would hold up the rebalance: give the batch back uncommitted
    if (work.retryTimer !== undefined) this.cancelRetry(work);
  }

  private cancelRetry(work: BatchWork): void {
    clearTimeout(work.retryTimer);
    work.retryTimer = undefined;
    work.actor.send({ type: 'SHUTDOWN' });
  }

  private finish(work: BatchWork, output: BatchOutput | undefined): void {
    if (!this.batches.delete(work.id)) return;
    clearInterval(work.heartbeat);
    clearTimeout(work.retryTimer);
    if (output) {
      this.counters.onOutcome(output, work.records.length);
      const { kind } = output.disposition;
      const { topic, partition } = work.payload.batch;
      const at = { batchId: work.id, topic, partition, records: work.records.length };
      this.log[kind === 'accept' ? 'debug' : 'info'](
        { ...at, kind, commitError: output.ackError },
        'batch done',
      );
    }
    work.settled(output);
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.running = false;
    this.log.error({ err: err.message }, 'classic task failed');
    this.pauseAll();
    const consumer = this.consumer;
    // leave the group so the partitions move on; not awaited: kafkajs's stop waits for eachBatch calls
    if (consumer) setImmediate(() => void consumer.stop().catch(() => undefined));
    this.o.onFailure?.(err);
  }

  // ------------------------------------------------------------------ effects of the batch machine

  private effects(): BatchEffects {
    const send = (id: string, event: BatchEvent) => this.batches.get(id)?.actor.send(event);
    return {
      startPut: ({ batchId }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        const abort = new AbortController();
        work.abort = abort;
        void this.o.pool.put(this.task, work.records, { signal: abort.signal }).then((result) => {
          work.lastPut = result;
          this.counters.onPut(result, work.records.length);
          if (result.kind === 'fatal')
            this.log.error({ batchId, code: result.code, err: result.message }, 'put failed');
          send(batchId, putVerdict(result, 'classic', this.tolerance, work.reasons).event);
        });
      },
      abortPut: ({ batchId, reason }) => {
        this.batches.get(batchId)?.abort?.abort(reason);
        this.counters.putsAborted++;
      },
      sendAcks: ({ batchId, disposition }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        void this.settle(work, disposition).then(
          () => send(batchId, { type: 'ACKED' }),
          (err: unknown) => send(batchId, { type: 'ACK_FAILED', errorCode: errorCodeOf(err) }),
        );
      },
      scheduleRetry: ({ batchId, attempt }) => {
        const work = this.batches.get(batchId);
        if (work) this.scheduleRetry(work, attempt);
      },
      // classic batches hold no lock: the machine never asks for these in mode 'classic'
      sendRenew: () => {},
      recordExpiry: () => {},
      recordAckFailure: ({ batchId, errorCode }) => {
        this.log.warn({ batchId, errorCode }, 'batch not committed; its records will be delivered again');
      },
    };
  }

  private scheduleRetry(work: BatchWork, attempt: number): void {
    if (!this.running || work.groupError !== undefined) {
      work.actor.send({ type: 'SHUTDOWN' });
      return;
    }
    work.retryingSince ??= Date.now();
    work.backoff ??= new RetryBackoff(100, this.o.errors?.retryDelayMaxMs ?? 60_000);
    const delayMs = nextRetryDelay(work.lastPut, work.backoff, work.retryingSince, this.o.errors);
    const message = putMessage(work.lastPut);
    if (delayMs === undefined) {
      this.log.warn({ batchId: work.id, attempt, err: message }, 'retries exhausted (errors.retry.timeout)');
      work.actor.send({ type: 'RETRIES_EXHAUSTED' });
      return;
    }
    this.counters.putsRetried++;
    this.log.warn({ batchId: work.id, attempt, delayMs, err: message }, 'put failed retriably; retrying');
    work.retryTimer = setTimeout(() => {
      work.retryTimer = undefined;
      const stop = !this.running || work.groupError !== undefined;
      work.actor.send({ type: stop ? 'SHUTDOWN' : 'RETRY' });
    }, delayMs);
  }

  /** Carries out the batch's disposition: commit, dead-letter then commit, fail, or leave for refetch. */
  private async settle(work: BatchWork, d: AckDisposition): Promise<void> {
    switch (d.kind) {
      case 'release':
        return; // unresolved: fetched again, by this member or the partition's next owner
      case 'accept':
        return this.commit(work);
      case 'partial':
        await this.deadLetter(work, d.rejectedOffsets);
        return this.commit(work);
      case 'reject': {
        if (this.tolerance === 'none') {
          const why = failureMessage(work.lastPut, work.reasons);
          this.fail(new TaskFailedError(`${why} (errors.tolerance=none; offsets not committed)`));
          return;
        }
        await this.deadLetter(
          work,
          work.records.map((_, i) => i),
        );
        return this.commit(work);
      }
    }
  }

  private async deadLetter(work: BatchWork, indexes: readonly number[]): Promise<void> {
    this.counters.recordsSkipped += indexes.length;
    const why = batchReason(work.lastPut);
    logFailedRecords(
      this.log,
      this.o.errorsLog,
      work.id,
      work.records,
      indexes,
      (i) => (work.reasons.get(i) ?? why).message,
    );
    if (this.dlq === undefined) {
      this.log.warn({ batchId: work.id, records: indexes.length }, 'errors.tolerance=all: records skipped');
      return;
    }
    const whole = batchReason(work.lastPut);
    try {
      const sent = await this.dlq.send(work.records, indexes, (i) => work.reasons.get(i) ?? whole);
      this.counters.recordsDeadLettered += sent;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.fail(
        new TaskFailedError(`could not write to dead letter topic ${this.dlq.topic}: ${message}`, {
          cause: err,
        }),
      );
      throw err;
    }
  }

  private async commit(work: BatchWork): Promise<void> {
    const { payload } = work;
    payload.resolveOffset(work.lastOffset);
    try {
      // every resolved offset belongs to a batch whose put succeeded, so all of them may go
      await payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
      this.counters.commits++;
    } catch (err) {
      this.counters.commitFailures++;
      if (isRejoinError(err)) work.groupError ??= err;
      throw err;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
