/**
 * One sink task in classic mode, Connect's WorkerSinkTask on a kafkajs consumer group: exclusive
 * partitions, offsets committed only after a successful put (at least once).
 *
 * The classic mode of the task-runner core (ADR 0009): kafkajs hands us one batch per partition fetch
 * (`eachBatch`, several partitions at once); each becomes one batch actor — the same pure batch machine
 * as share mode, in mode `classic` — and one put on the same PutPool. Where share mode acknowledges,
 * classic mode commits, dead-letters or fails the task under `errors.tolerance`. kafkajs calls eachBatch
 * for a partition again only after the previous call returned, and fetches from the last resolved
 * offset, so a batch that is not resolved is fetched again: that is how a released batch comes back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumerConfig } from 'kafkajs';
import type { Logger } from 'pino';
import type { RawRecord } from '../../../connect/raw-record.js';
import {
  classicConsumerSettings,
  createClassicKafka,
  isRejoinError,
} from '../../../kafka/kafkajs/classic-consumer.js';
import { coordinatorWaitIn } from '../../../kafka/kafkajs/pino-log.js';
import type { BatchOutput } from '../../../machines/batch.js';
import type { PoolTask } from '../../../pool/put-pool.js';
import type { Assignment } from '../../../pool/protocol.js';
import { ClassicTaskCounters, LEFT_UNCOMMITTED } from './records.js';
import { ClassicDeadLetters } from './dead-letters.js';
import { TaskFailedError } from '../../errors/task-failed.js';
import { errorCodeOf } from '../../errors/tolerance.js';
import { settleClassicBatch, type ClassicBatch, type ClassicSettlement } from './settle.js';
import { clusterUnreachable, crashReason } from './crashes.js';
import type { ClassicTaskRunnerOptions } from './options.js';
import { ClassicCommits, rejoinNeeded } from './commits.js';
import { closeWithin } from './stop.js';
import { TaskRunnerCore, type RunnerMode } from '../core/task-runner-core.js';
import {
  fetchLastOffset,
  fetchRecords,
  kafkajsSource,
  type ClassicSource,
  type SourceFetch,
} from './source.js';
import { consumerProtocolSource, unusedConsumerSettings } from './consumer-protocol-source.js';

export type { ClassicErrorsOptions } from '../../errors/tolerance.js';
export type { ClassicTaskRunnerOptions } from './options.js';

export class ClassicTaskRunner {
  readonly counters = new ClassicTaskCounters();
  private readonly o: ClassicTaskRunnerOptions;
  private readonly log: Logger;
  private readonly core: TaskRunnerCore<ClassicBatch>;
  private readonly tolerance: 'none' | 'all';
  private readonly commits: ClassicCommits;
  /** Commits and the dead-letter topic: what a batch's disposition is carried out with. */
  private readonly settlement: ClassicSettlement;
  private task: PoolTask;
  private assignmentVersion = 0;
  private consumer: ClassicSource | undefined;
  private heartbeatMs = 3000;
  private maxPollRecords = 500;
  /** `fetch.max.wait.ms` and `session.timeout.ms`, for the bound on the stop's leave (classic-stop.ts). */
  private timeouts = { fetchMaxWaitMs: 500, sessionTimeoutMs: 45_000 };
  private seq = 0;
  private running = false;
  private paused = false;
  private stopping: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  /** The latest consumer.run(), settled: kafkajs is not in the middle of a join. */
  private joining: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;
  private retriableCrash: Error | undefined;
  private failed: Error | undefined;

  constructor(options: ClassicTaskRunnerOptions) {
    if ((options.topics?.length ?? 0) === 0 && options.topicsRegex === undefined)
      throw new TypeError('ClassicTaskRunner needs topics or topicsRegex');
    this.o = options;
    // the connector is bound by its runtime already: binding it again would write the key twice
    this.log = options.logger.child({ task: options.taskId });
    this.tolerance = options.errors?.tolerance ?? 'none';
    this.commits = new ClassicCommits(this.counters, this.log);
    const deadLetters = new ClassicDeadLetters({
      task: options,
      counters: this.counters,
      log: this.log,
      fail: (e) => this.fail(e),
    });
    this.settlement = { commits: this.commits, deadLetters, tolerance: this.tolerance };
    this.task = options.poolTask;
    this.core = new TaskRunnerCore(
      {
        pool: options.pool,
        counters: this.counters,
        log: this.log,
        inspect: options.inspect,
        fail: (e) => this.fail(e),
      },
      this.mode(),
    );
  }

  get inFlight(): number {
    return this.core.batches.size;
  }

  /** The partitions this task owns; the version counts group joins (1 after the first). */
  get assignment(): Assignment | undefined {
    return this.task.assignment;
  }

  /**
   * Joins the group and starts consuming; resolves once the first assignment is in, or early, with nothing
   * running, once a stop() began (that stop tears down what start built). A crash kafkajs would not
   * restart, such as a join the broker refuses, rejects it with the task's error.
   */
  start(): Promise<void> {
    this.starting ??= this.begin();
    return this.starting;
  }

  private async begin(): Promise<void> {
    const { o } = this;
    if (this.halted()) return;
    const kafka = createClassicKafka({ ...o, logger: this.log });
    const settings = classicConsumerSettings(o.groupId, o.consumer);
    const kip848 = o.groupProtocol === 'consumer';
    const ignored = kip848 ? unusedConsumerSettings(o.consumer) : settings.ignored;
    const what = kip848 ? 'group.protocol=consumer' : 'classic mode';
    if (ignored.length > 0) this.log.warn({ settings: ignored }, `consumer settings ${what} does not use`);
    this.heartbeatMs = settings.config.heartbeatInterval ?? 3000;
    this.maxPollRecords = settings.maxPollRecords;
    const { maxWaitTimeInMs, sessionTimeout } = settings.config;
    this.timeouts = { fetchMaxWaitMs: maxWaitTimeInMs ?? 500, sessionTimeoutMs: sessionTimeout ?? 45_000 };
    await this.settlement.deadLetters.start(kafka);
    if (this.halted()) return;
    const consumer = kip848
      ? consumerProtocolSource({ ...o, consumer: o.consumer ?? {}, logger: this.log })
      : kafkajsSource(kafka, settings.config, (err) => (this.retriableCrash = err));
    this.consumer = consumer;
    consumer.onAssignment((a) => this.onAssignment(a));
    consumer.onCrash((error) => this.onCrash(consumer, error, settings.config));
    await consumer.connect();
    if (this.halted()) return;
    const topics: (string | RegExp)[] = [...(o.topics ?? [])];
    if (o.topicsRegex !== undefined) topics.push(o.topicsRegex);
    await consumer.subscribe(topics, settings.fromBeginning);
    if (this.halted()) return;
    this.running = true;
    await this.run(consumer);
    if (this.halted()) return;
    this.log.info({ topics: topics.map(String), group: o.groupId }, 'classic task started');
  }

  /** A stop began: start() leaves the teardown to it. A failure meanwhile is start()'s error. */
  private halted(): boolean {
    if (this.failed) throw this.failed;
    return this.stopping !== undefined;
  }

  /** kafkajs joins the group inside run(), which settles once the member joined or crashed. */
  private run(consumer: ClassicSource): Promise<void> {
    const run = consumer.run((fetch) => this.onBatch(fetch), this.o.maxInFlightBatches ?? 4);
    this.joining = run.catch(() => undefined);
    return run;
  }

  /** kafkajs has left the group and disconnected by now; a retriable crash is restarted here. */
  private onCrash(consumer: ClassicSource, error: Error, config: ConsumerConfig): void {
    const retriable = this.retriableCrash === error || clusterUnreachable(error);
    this.retriableCrash = undefined;
    if (this.stopping !== undefined || this.failed !== undefined)
      return this.log.debug({ err: error.message }, 'consumer crashed; not restarted: the task is stopping');
    if (!retriable) return this.fail(new TaskFailedError(crashReason(error, config), { cause: error }));
    // a coordinator still loading at start-up is normal, and it clears in seconds
    const quiet = coordinatorWaitIn(error.message) !== undefined;
    this.log[quiet ? 'debug' : 'warn']({ err: error.message }, 'consumer crashed; restarting it');
    const retryTime = (error as { retryTime?: number }).retryTime ?? 300; // as kafkajs waits
    this.restartTimer = setTimeout(() => {
      if (this.running) this.run(consumer).catch((err: Error) => this.onCrash(consumer, err, config));
    }, retryTime);
  }

  /**
   * Stops taking batches, lets running puts and dead-letter writes finish within the grace time, aborts
   * the puts and gives up the writes still running (uncommitted: the next owner of the partition gets
   * them again), then leaves the group. Each fetch commits what its finished puts resolved before kafkajs
   * leaves (onBatch). Those commits and the leave get the grace again, then are abandoned (classic-stop.ts).
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.restartTimer);
    this.pauseAll();
    const batches = this.core.batches;
    this.core.stopRetries();
    const graceMs = this.o.shutdownGraceMs ?? 5000;
    const deadline = Date.now() + graceMs;
    while (batches.size > 0 && Date.now() < deadline)
      await sleep(Math.max(0, Math.min(50, deadline - Date.now())));
    for (const w of batches.values()) w.actor.send({ type: 'SHUTDOWN' });
    // a batch settling ignores SHUTDOWN; a dead-letter write kafkajs retries would hold the stop for seconds
    this.settlement.deadLetters.giveUp();
    const ended = async () => {
      while (batches.size > 0) await sleep(20);
    };
    const disconnect = async () =>
      this.consumer?.disconnect().catch((err: Error) => this.log.warn({ err: err.message }, 'disconnect'));
    await closeWithin(
      {
        batchesEnded: ended,
        // kafkajs's stop cannot reach a member whose join is under way: that member would join after it
        joinSettled: async () => {
          await this.starting?.catch(() => undefined);
          await this.joining;
        },
        leave: disconnect,
        closeDeadLetters: () => this.settlement.deadLetters.close(),
      },
      { log: this.log, graceMs, ...this.timeouts, onRunOut: () => this.commits.giveUp() },
    );
    // the commits given up on end their batches at once: counted released, not accepted
    await ended();
    this.log.info(this.counters.snapshot(), 'classic task stopped');
  }

  private onAssignment(memberAssignment: Record<string, number[]>): void {
    const partitions = [];
    for (const [topic, ps] of Object.entries(memberAssignment))
      for (const partition of ps) partitions.push({ topic, partition });
    // a new version makes every pool thread diff it on its next put: close(revoked), open(assigned)
    this.task = { ...this.o.poolTask, assignment: { version: ++this.assignmentVersion, partitions } };
    this.log.info({ partitions: partitions.length, version: this.assignmentVersion }, 'partitions assigned');
    // a paused task stays paused across rebalances, including for topics it did not own before; a
    // stopping one fetches nothing more while its stop waits for this join
    if (this.paused || !this.running) this.pauseAll();
  }

  /** Stops fetching (kafkajs `pause`); batches already taken finish and commit. For REST pause. */
  pause(): void {
    this.paused = true;
    this.pauseAll();
  }

  resume(): void {
    this.paused = false;
    if (this.running) this.fetching('resume');
  }

  private pauseAll(): void {
    this.fetching('pause');
  }

  /**
   * kafkajs pause / resume of every assigned topic. kafkajs refuses both while its consumer has no group:
   * stopped, or crashed and not yet run again by onCrash's restart. Nothing is lost then: a restart makes
   * a new group, which fetches everything, and onAssignment pauses it again while the task is paused.
   */
  private fetching(what: 'pause' | 'resume'): void {
    const topics = new Set((this.task.assignment?.partitions ?? []).map((tp) => tp.topic));
    if (topics.size === 0 || this.consumer === undefined) return;
    try {
      this.consumer[what]([...topics]);
    } catch (err) {
      this.log.debug({ err: err instanceof Error ? err.message : String(err) }, `consumer ${what} skipped`);
    }
  }

  /**
   * One kafkajs fetch of a partition, put in chunks of at most `max.poll.records` records, one after
   * the other, as Connect's consumer poll hands them over: each chunk is a batch of its own, resolved
   * when it is done, and the fetch's offsets are committed once, after its last chunk. A chunk that is
   * not resolved (released at a stop, failed, the group moved on) ends the fetch: its records and the
   * rest are fetched again from the last resolved offset, and what earlier chunks resolved is committed
   * here, before kafkajs leaves the group or rejoins and forgets it (ClassicCommits.leftovers).
   */
  private async onBatch(payload: SourceFetch): Promise<void> {
    const records = fetchRecords(payload);
    const last = fetchLastOffset(payload);
    if (last === undefined || records.length === 0) return;
    let ended: ClassicBatch | undefined;
    let groupError: unknown;
    for (let from = 0; from < records.length; from += this.maxPollRecords) {
      if (!this.running || !payload.isRunning() || payload.isStale()) break;
      // between chunks too, as Connect polls: the timer never fires under puts shorter than its period
      if ((groupError = await rejoinNeeded(payload)) !== undefined) break;
      const chunk = records.slice(from, from + this.maxPollRecords);
      const final = from + this.maxPollRecords >= records.length;
      // the last chunk resolves the fetch's last offset, which covers trailing control records
      const lastOffset = final ? last : String(chunk[chunk.length - 1]!.offset);
      const { batch, output } = await this.putChunk(payload, chunk, lastOffset, final);
      ended = batch;
      if ((groupError = batch.groupError) !== undefined || output === undefined) break;
      if (output.disposition.kind === 'release' || !output.acked) break;
    }
    const why = groupError !== undefined ? 'rebalance' : this.failed ? 'task failed' : 'stop';
    // a last chunk whose commit was sent, even a failed one, leaves nothing more to try
    if (ended?.commitSent !== true) await this.commits.leftovers(payload, why);
    if (groupError !== undefined) throw groupError;
  }

  private async putChunk(
    payload: SourceFetch,
    records: readonly RawRecord[],
    lastOffset: string,
    commits: boolean,
  ): Promise<{ batch: ClassicBatch; output: BatchOutput | undefined }> {
    const id = `${this.o.connector}-${this.o.taskId}-${++this.seq}`;
    this.counters.onBatch(records.length, records);
    let batch!: ClassicBatch;
    const settled = new Promise<BatchOutput | undefined>((resolve) => {
      // kafkajs only heartbeats between batches; a long put or retry must keep the membership alive
      const heartbeat = setInterval(() => {
        payload.heartbeat().catch((err: unknown) => this.onGroupError(batch, err));
      }, this.heartbeatMs / 2);
      batch = {
        id,
        payload,
        records,
        lastOffset,
        commits,
        actor: this.core.actorFor({ batchId: id, recordCount: records.length, acquiredAt: Date.now() }),
        heartbeat,
        settled: resolve,
        reasons: new Map(),
        put: undefined,
        lastPut: undefined,
      };
    });
    this.core.track(batch);
    batch.actor.start();
    this.core.dispatch([batch]);
    return { batch, output: await settled };
  }

  private onGroupError(batch: ClassicBatch, err: unknown): void {
    if (!isRejoinError(err)) return; // kafkajs reconnects on its own
    batch.groupError ??= err;
    // a retry loop would hold up the rebalance: give the batch back uncommitted
    this.core.stopRetries(batch);
  }

  private batchDone(batch: ClassicBatch, output: BatchOutput | undefined): void {
    clearInterval(batch.heartbeat);
    if (output) {
      const { kind } = output.disposition;
      const { topic, partition } = batch.payload.batch;
      const at = { batchId: batch.id, topic, partition, records: batch.records.length };
      this.log[kind === 'accept' ? 'debug' : 'info'](
        { ...at, kind, commitError: output.ackError },
        'batch done',
      );
    }
    batch.settled(output);
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.running = false;
    clearTimeout(this.restartTimer);
    this.log.error({ err: err.message }, 'classic task failed');
    this.pauseAll();
    // a retry backoff holds its eachBatch open, and kafkajs's stop waits for every eachBatch
    this.core.stopRetries();
    const consumer = this.consumer;
    // leave the group so the partitions move on; not awaited: kafkajs's stop waits for eachBatch calls
    if (consumer) setImmediate(() => void consumer.stop().catch(() => undefined));
    this.o.onFailure?.(err);
  }

  /** The classic mode of the core: commits, the dead-letter topic, the consumer group. */
  private mode(): RunnerMode<ClassicBatch> {
    const errors = this.o.errors;
    return {
      mode: 'classic',
      tolerance: this.tolerance,
      // 0 and -1 retry until it succeeds, as Connect's WorkerSinkTask does for put()
      retryTimeoutMs: errors?.retryTimeoutMs ?? -1,
      retryDelayMaxMs: errors?.retryDelayMaxMs ?? 60_000,
      poolTask: () => this.task,
      toRaw: (batches) => (batches.length === 1 ? batches[0]!.records : batches.flatMap((b) => b.records)),
      settle: (batch, d) =>
        settleClassicBatch(this.settlement, batch, d).then(
          (settled) => {
            if (settled instanceof TaskFailedError) this.fail(settled);
            return settled === true ? null : LEFT_UNCOMMITTED;
          },
          (err: unknown) => errorCodeOf(err),
        ),
      // a rebalance or a stop gives the batch back uncommitted: its next owner fetches it again
      retryDecision: (batches) =>
        !this.running || batches.some((b) => b.groupError !== undefined) ? 'release' : 'retry',
      onRetry: () => this.counters.putsRetried++,
      onPutEnded: () => {},
      onPutResult: () => {},
      onBatchDone: (batch, output) => this.batchDone(batch, output),
      // classic batches hold no lock: the machine never asks for these in mode 'classic'
      renew: () => {},
      recordExpiry: () => {},
      recordAckFailure: (batch, errorCode) => {
        // said where it was decided: the task's failure, the dead-letter write given up
        if (errorCode === LEFT_UNCOMMITTED) return;
        // the put succeeded and its offsets were resolved: the partition reads on, and the next commit
        // covers them (a broker restart showed it: nothing came again); only a rebalance, a stop or a
        // crash before that commit has them delivered again
        this.log.warn(
          { batchId: batch.id, errorCode },
          'offset commit failed; the next commit covers the batch, unless the partition moves before it',
        );
      },
    };
  }
}
