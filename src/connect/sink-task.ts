import type { SinkRecord, TopicPartition, TopicPartitionOffset } from './sink-record.js';

/**
 * Marks one record as bad without failing the batch: in share mode it is REJECTed while the rest of
 * the batch is ACCEPTed. Call it from `put()` for each record you could not write, then return normally.
 */
export type ErrantRecordReporter = (record: SinkRecord, error: unknown) => void;

/** What the runtime offers a running task (Connect's SinkTaskContext, minus what share mode cannot honour). */
export interface SinkTaskContext {
  /** The task's properties, as passed to `start()`. */
  configs(): Readonly<Record<string, string>>;
  /** Classic mode: the partitions currently assigned. Share mode: one `ALL_PARTITIONS` entry per topic. */
  assignment(): readonly TopicPartition[];
  errantRecordReporter(): ErrantRecordReporter;
  /** How long to wait before the batch is retried after a RetriableError (Connect's `context.timeout`). */
  timeout(ms: number): void;
  /**
   * Fires when the runtime gives up on the `put()` in progress: its records' locks are about to expire,
   * `put.timeout.ms` ran out, or the task is stopping. The records are released (share) or retried
   * (classic) whatever the put does next, so stop waiting: pass it to `fetch()`, cancel the query, and
   * throw. A put that ignores it for `pool.abort.grace.ms` costs its worker thread, and every other put
   * running on that thread is released or retried too. Outside a put it never fires. Not in Connect.
   */
  abortSignal(): AbortSignal;
}

type Awaitable<T> = T | Promise<T>;

/**
 * The part of a sink connector that writes records. sharesink may run several instances of one task
 * (one per pool thread), so a task must not assume it sees every record of a partition, and never
 * sees two `put()` calls at once on the same instance unless it asks for them ({@link SinkTask.putsAtOnce}).
 *
 * Lifecycle: `initialize` → `start` → `open` → (`put` → `preCommit`)* → `close` → `stop`.
 * sharesink calls `preCommit` (which calls `flush` by default) right after every successful `put`,
 * in the same thread, before acknowledging or committing the batch: when it returns, the batch's
 * records must be written.
 */
export abstract class SinkTask {
  protected context!: SinkTaskContext;

  initialize(context: SinkTaskContext): void {
    this.context = context;
  }

  abstract version(): string;
  abstract start(props: Readonly<Record<string, string>>): Awaitable<void>;
  abstract put(records: readonly SinkRecord[]): Awaitable<void>;
  abstract stop(): Awaitable<void>;

  /** Make everything passed to `put()` so far durable. `offsets` are the next offsets after the batch. */
  flush(_offsets: readonly TopicPartitionOffset[]): Awaitable<void> {}

  /** Returns the offsets that are safe to commit; by default flushes and returns them all. */
  async preCommit(offsets: readonly TopicPartitionOffset[]): Promise<readonly TopicPartitionOffset[]> {
    await this.flush(offsets);
    return offsets;
  }

  /**
   * How many `put()` calls this instance takes at once (read once, after `start()`). Default 1: one
   * put at a time, as Connect calls a task. A task that says more gets its next batch's put() while
   * earlier ones still run (each followed by its own `preCommit()`), so that the next batch is
   * converted and sent while the database still writes the last one; its batches may then be written
   * and acknowledged in any order. Such a task reads `context.abortSignal()` synchronously in
   * `put()`, before its first await: later on it cannot tell which put it is in. Not in Connect.
   */
  putsAtOnce?(): number;

  open(_partitions: readonly TopicPartition[]): Awaitable<void> {}
  close(_partitions: readonly TopicPartition[]): Awaitable<void> {}
}
