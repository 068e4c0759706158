import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { loadConnectorModule, type ConnectorModule } from '../connect/connector-module.js';
import { convertBatch, prepareBatch } from '../connect/converters/convert-batch.js';
import { createConverters, type LoadedConverters } from '../connect/converters/registry.js';
import { isRetriableError } from '../connect/errors.js';
import { transientCause } from '../connect/transient-errors.js';
import { TransformChain } from '../connect/transforms/chain.js';
import {
  BATCH_INDEX,
  type SinkRecord,
  type TopicPartition,
  type TopicPartitionOffset,
} from '../connect/sink-record.js';
import type { SinkTask, SinkTaskContext } from '../connect/sink-task.js';
import type {
  ConverterFailureInfo,
  ErrorInfo,
  PutOutcome,
  PutRequest,
  PutResult,
  RecordRejection,
} from './protocol.js';
import { importModule } from './import-module.js';
import { decodeWireBatch, isWireBatch } from './wire-batch.js';

interface Hosted {
  readonly taskId: string;
  readonly configKey: string;
  readonly instance: SinkTask;
  readonly converters: LoadedConverters;
  /** Applied to every converted batch before put(); Connect builds one chain per task. */
  readonly transforms: TransformChain;
  readonly props: Readonly<Record<string, string>>;
  assignmentVersion: number;
  partitions: readonly TopicPartition[];
  /** Rejections of the batch being put; undefined outside a put, so late reports are dropped. */
  rejections: Map<number, Omit<RecordRejection, 'index'>> | undefined;
  current: readonly SinkRecord[];
  backoffMs: number | undefined;
  /** The put in progress on this instance and its abort, for `context.abortSignal()`. */
  putId: number;
  abort: AbortController;
}

/** Outside a put the signal never fires: a fresh controller nobody aborts. */
const IDLE = new AbortController();

export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { message: error.message, stack: error.stack, code: typeof code === 'string' ? code : undefined };
  }
  return { message: String(error) };
}

function failure(error: unknown, backoffMs?: number): PutOutcome {
  if (isRetriableError(error)) return { kind: 'retriable', backoffMs, ...errorInfo(error) };
  const transient = transientCause(error);
  if (transient === undefined) return { kind: 'fatal', ...errorInfo(error) };
  // a network or disk failure the task did not classify: retried, and the message says why
  const info = errorInfo(error);
  const detail = info.message.includes(transient.message) ? '' : `: ${transient.message}`;
  return {
    kind: 'retriable',
    backoffMs,
    ...info,
    message: `${info.message}${detail} (${transient.code}: a transient failure, retried; throw ConnectError to reject instead)`,
  };
}

const tpKey = (tp: TopicPartition): string => `${tp.topic}\u0000${tp.partition}`;

/**
 * The offsets after a batch, per partition: what `preCommit` receives (Connect's next-offset convention).
 * Records of one partition come in runs, so a key is looked up only where the partition changes: a
 * string key per record was a fifth of a pool thread's time in a 100 B drain.
 */
export function nextOffsets(
  records: readonly { topic: string; partition: number; offset: number }[],
): TopicPartitionOffset[] {
  const byTopic = new Map<string, Map<number, { topic: string; partition: number; offset: number }>>();
  let run: { topic: string; partition: number; offset: number } | undefined;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (run === undefined || run.partition !== r.partition || run.topic !== r.topic) {
      let parts = byTopic.get(r.topic);
      if (!parts) byTopic.set(r.topic, (parts = new Map()));
      run = parts.get(r.partition);
      if (!run)
        parts.set(r.partition, (run = { topic: r.topic, partition: r.partition, offset: r.offset + 1 }));
    }
    if (run.offset <= r.offset) run.offset = r.offset + 1;
  }
  const out: TopicPartitionOffset[] = [];
  for (const parts of byTopic.values()) for (const tpo of parts.values()) out.push(tpo);
  return out;
}

/**
 * Loads the connector module at most once for everyone who calls it (a thread's boot and its puts, or
 * every host of the event loop); a failed load is forgotten, so the next call tries again.
 */
export function connectorLoader(specifier: string): () => Promise<ConnectorModule> {
  let loading: Promise<ConnectorModule> | undefined;
  return () =>
    (loading ??= loadConnectorModule(specifier, importModule).catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/**
 * Lives in a worker thread and hosts that thread's instances of connector tasks, keyed by task id.
 * Imports only the connector contract and converters: nothing of the runtime reaches a worker.
 */
export class TaskHost {
  readonly #load: () => Promise<ConnectorModule>;
  readonly #tasks = new Map<string, Hosted>();
  /** Puts aborted before they started here (waiting behind their instance's previous put). */
  readonly #abortedEarly = new Map<number, string>();
  /** Per task id: the tail of its queued work (create, puts, stop). */
  readonly #lanes = new Map<string, Promise<void>>();

  /** `load` is shared with whoever else needs the module in this thread: see {@link connectorLoader}. */
  constructor(load: () => Promise<ConnectorModule>) {
    this.#load = load;
  }

  /** Never rejects: every failure, including a task that cannot start, becomes a result. */
  put(request: PutRequest): Promise<PutResult> {
    const began = performance.now();
    return this.#inLane(request.taskId, () => this.#startAndPut(request, began));
  }

  /**
   * Fires the abort signal of put `putId` if this thread runs it; a put of this thread still waiting
   * behind its instance's previous put is skipped when its turn comes. Other threads ignore it.
   */
  abort(putId: number, reason: string): void {
    for (const hosted of this.#tasks.values()) {
      if (hosted.putId === putId) {
        hosted.abort.abort(reason);
        return;
      }
    }
    this.#abortedEarly.set(putId, reason);
    // the main side drops a put it cannot place, so an entry only outlives its put on a race; keep few
    if (this.#abortedEarly.size > 256) this.#abortedEarly.delete(this.#abortedEarly.keys().next().value!);
  }

  /**
   * Lets go of the task's instance while its put `putId` still runs (it ignored its abort and nothing
   * can stop it): the next put of the task starts a new instance instead of queueing behind that put
   * forever, as a pool thread that is terminated loses its instances. The old instance is never
   * stopped. False when the put is no longer running.
   */
  abandon(taskId: string, putId: number): boolean {
    if (this.#tasks.get(taskId)?.putId !== putId) return false;
    this.#tasks.delete(taskId);
    this.#lanes.delete(taskId);
    return true;
  }

  /** Stops this thread's instance of the task, after its running put (if any) finished. */
  stop(taskId: string): Promise<boolean> {
    return this.#inLane(taskId, () => this.#stopNow(taskId));
  }

  /**
   * Runs `work` after everything queued before it for the same task id: creating the instance, its
   * puts and its stop never overlap, as Connect never calls a task concurrently. Different task ids
   * run side by side on this thread.
   */
  #inLane<T>(taskId: string, work: () => Promise<T>): Promise<T> {
    const run = (this.#lanes.get(taskId) ?? Promise.resolve()).then(work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#lanes.set(taskId, settled);
    void settled.then(() => {
      if (this.#lanes.get(taskId) === settled) this.#lanes.delete(taskId);
    });
    return run;
  }

  async #startAndPut(request: PutRequest, began: number): Promise<PutResult> {
    let hosted = this.#tasks.get(request.taskId);
    let taskStarted = false;
    if (hosted === undefined || hosted.configKey !== request.configKey) {
      try {
        // a changed config means a new instance, as Connect restarts a reconfigured task
        if (hosted !== undefined) await this.#stopNow(request.taskId).catch(() => undefined);
        hosted = await this.#create(request);
      } catch (error) {
        return this.#result(failure(error), began, 0, [], true);
      }
      taskStarted = true;
    }
    return this.#put(hosted, request, began, taskStarted);
  }

  async #stopNow(taskId: string): Promise<boolean> {
    const hosted = this.#tasks.get(taskId);
    if (hosted === undefined) return false;
    this.#tasks.delete(taskId);
    try {
      if (hosted.partitions.length > 0) await hosted.instance.close(hosted.partitions);
    } finally {
      try {
        await hosted.instance.stop();
      } finally {
        hosted.transforms.close();
      }
    }
    return true;
  }

  async #create(request: PutRequest): Promise<Hosted> {
    const module = await this.#load();
    const converters = await createConverters(request.converters, importModule);
    // before the task starts: a transform that cannot be configured fails the start, like a converter
    const transforms = request.transforms
      ? await TransformChain.load(request.transforms, importModule)
      : TransformChain.EMPTY;
    const instance = new module.task();
    const hosted: Hosted = {
      taskId: request.taskId,
      configKey: request.configKey,
      instance,
      converters,
      transforms,
      props: request.props,
      assignmentVersion: request.assignment.version,
      partitions: request.assignment.partitions,
      rejections: undefined,
      current: [],
      backoffMs: undefined,
      putId: 0,
      abort: IDLE,
    };
    instance.initialize(this.#context(hosted));
    try {
      await instance.start(request.props);
      if (hosted.partitions.length > 0) await instance.open(hosted.partitions);
    } catch (error) {
      await Promise.resolve()
        .then(() => instance.stop())
        .catch(() => undefined);
      transforms.close();
      throw error;
    }
    this.#tasks.set(request.taskId, hosted);
    return hosted;
  }

  #context(hosted: Hosted): SinkTaskContext {
    const report = (record: SinkRecord, error: unknown): void => {
      if (hosted.rejections === undefined) return;
      const index = record[BATCH_INDEX] ?? findIndex(hosted.current, record);
      if (index === undefined) return;
      hosted.rejections.set(
        index,
        error instanceof Error
          ? { message: error.message, errorClass: errorClassOf(error), stack: error.stack }
          : { message: String(error) },
      );
    };
    return {
      configs: () => hosted.props,
      assignment: () => hosted.partitions,
      errantRecordReporter: () => report,
      timeout: (ms) => {
        hosted.backoffMs = ms;
      },
      abortSignal: () => hosted.abort.signal,
    };
  }

  async #syncAssignment(hosted: Hosted, request: PutRequest): Promise<void> {
    if (hosted.assignmentVersion === request.assignment.version) return;
    const next = request.assignment.partitions;
    const nextKeys = new Set(next.map(tpKey));
    const oldKeys = new Set(hosted.partitions.map(tpKey));
    const revoked = hosted.partitions.filter((tp) => !nextKeys.has(tpKey(tp)));
    const assigned = next.filter((tp) => !oldKeys.has(tpKey(tp)));
    if (revoked.length > 0) await hosted.instance.close(revoked);
    hosted.partitions = next;
    hosted.assignmentVersion = request.assignment.version;
    if (assigned.length > 0) await hosted.instance.open(assigned);
  }

  async #put(hosted: Hosted, request: PutRequest, began: number, taskStarted: boolean): Promise<PutResult> {
    let convertMs = 0;
    let converterFailures: ConverterFailureInfo[] = [];
    hosted.backoffMs = undefined;
    const early = this.#abortedEarly.get(request.putId);
    if (early !== undefined) {
      this.#abortedEarly.delete(request.putId);
      // the main side no longer waits for this put's records: nothing is written
      return this.#result({ kind: 'aborted', reason: early }, began, 0, [], taskStarted);
    }
    hosted.putId = request.putId;
    hosted.abort = new AbortController();
    try {
      await this.#syncAssignment(hosted, request);
      const convertStart = performance.now();
      const raws = isWireBatch(request.batch) ? decodeWireBatch(request.batch) : request.batch;
      // schemas a registry converter lacks are fetched here, once per batch; unreachable = retriable
      await prepareBatch(raws, hosted.converters);
      const converted = convertBatch(raws, hosted.converters);
      converterFailures = converted.failures.map(({ index, error }) => ({
        index,
        code: 'SHARESINK_CONVERTER_FAILED',
        message: error.message,
        converter: error.converter,
        part: error.part,
      }));
      // dropped records are simply not put: with no failure reported they are acked like put ones
      const { records, failures } = hosted.transforms.apply(converted.records);
      for (const { index, error } of failures)
        converterFailures.push({
          index,
          code: 'SHARESINK_TRANSFORM_FAILED',
          message: error.message,
          converter: error.type,
          part: 'transform',
        });
      convertMs = performance.now() - convertStart;
      if (records.length === 0)
        return this.#result({ kind: 'ok' }, began, convertMs, converterFailures, taskStarted);
      hosted.rejections = new Map();
      hosted.current = records;
      await hosted.instance.put(records);
      await hosted.instance.preCommit(nextOffsets(raws));
      const rejected: RecordRejection[] = [...hosted.rejections].map(([index, why]) => ({ index, ...why }));
      const outcome: PutOutcome = rejected.length === 0 ? { kind: 'ok' } : { kind: 'perRecord', rejected };
      return this.#result(outcome, began, convertMs, converterFailures, taskStarted);
    } catch (error) {
      return this.#result(failure(error, hosted.backoffMs), began, convertMs, converterFailures, taskStarted);
    } finally {
      hosted.rejections = undefined;
      hosted.current = [];
      hosted.putId = 0;
      hosted.abort = IDLE;
    }
  }

  #result(
    outcome: PutOutcome,
    began: number,
    convertMs: number,
    converterFailures: readonly ConverterFailureInfo[],
    taskStarted: boolean,
  ): PutResult {
    return {
      ...outcome,
      durationMs: performance.now() - began,
      convertMs,
      converterFailures,
      threadId,
      taskStarted,
    };
  }
}

/** For records a task built itself (another copy of sharesink): match by coordinates. */
function findIndex(records: readonly SinkRecord[], record: SinkRecord): number | undefined {
  const found = records.find(
    (r) => r.topic === record.topic && r.partition === record.partition && r.offset === record.offset,
  );
  return found?.[BATCH_INDEX];
}

/** The class a DLQ header should name: the constructor's name (`name` is often left as `Error`). */
function errorClassOf(error: Error): string {
  const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof ctor === 'string' && ctor !== '' ? ctor : error.name;
}
