import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { dropOldest } from '../bounded.js';
import { loadConnectorModule, type ConnectorModule } from '../connect/connector-module.js';
import { createConverters, type LoadedConverters } from '../connect/converters/registry.js';
import { isRetriableError } from '../connect/errors.js';
import { transientCause } from '../connect/transient-errors.js';
import { TransformChain } from '../connect/transforms/chain.js';
import type { SinkRecord, TopicPartition } from '../connect/sink-record.js';
import type { SinkTask, SinkTaskContext } from '../connect/sink-task.js';
import type {
  ConverterFailureInfo,
  ErrorInfo,
  PutOutcome,
  PutRequest,
  PutResult,
  RecordRejection,
} from './protocol.js';
import { convertPut, type ConvertedPut } from './batch-conversion.js';
import { importModule } from './import-module.js';
import { nextOffsets, putOf, putsAtOnce, type RunningPut } from './running-puts.js';
import { TaskLane } from './task-lane.js';

interface Hosted {
  readonly taskId: string;
  readonly configKey: string;
  readonly instance: SinkTask;
  readonly converters: LoadedConverters;
  /** Applied to every converted batch before put(); Connect builds one chain per task. */
  readonly transforms: TransformChain;
  readonly props: Readonly<Record<string, string>>;
  /** Puts this instance takes at once: its `putsAtOnce()` once started, 1 by default. */
  putsAtOnce: number;
  assignmentVersion: number;
  partitions: readonly TopicPartition[];
  /** `context.timeout()` since the starting put began: a conversion failure's backoff. */
  backoffMs: number | undefined;
  /** The put in its turn before put() is called (converting, applying an assignment): abort() and abandon() find it. */
  starting: RunningPut | undefined;
  /** The puts running on this instance, by put id: a report or an abort finds its put here. */
  readonly puts: Map<number, RunningPut>;
  /** The put being started: what `context.abortSignal()` answers (with one put at a time, while it runs). */
  active: RunningPut | undefined;
}

/** Outside a put the signal never fires: a fresh controller nobody aborts. */
const IDLE_PUT = { abort: new AbortController() };

/** What an ended put points at instead of its records. */
const NO_RECORDS: readonly SinkRecord[] = Object.freeze([]);

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
  /** Per task id: the order of its work (create, puts, stop). */
  readonly #lanes = new Map<string, TaskLane>();

  /** `load` is shared with whoever else needs the module in this thread: see {@link connectorLoader}. */
  constructor(load: () => Promise<ConnectorModule>) {
    this.#load = load;
  }

  /** Never rejects: every failure, including a task that cannot start, becomes a result. */
  put(request: PutRequest): Promise<PutResult> {
    const began = performance.now();
    const lane = this.#lane(request.taskId);
    // the turn ends when the put has started; the put itself is the inner promise
    return lane.turn(() => this.#startAndPut(lane, request, began)).then((turn) => turn.running);
  }

  /**
   * Fires the abort signal of put `putId` if this thread runs it; a put of this thread still waiting
   * behind its instance's previous put is skipped when its turn comes. Other threads ignore it.
   */
  abort(putId: number, reason: string): void {
    for (const hosted of this.#tasks.values()) {
      const put = hosted.puts.get(putId) ?? (hosted.starting?.putId === putId ? hosted.starting : undefined);
      if (put !== undefined) {
        put.abort.abort(reason);
        return;
      }
    }
    this.#abortedEarly.set(putId, reason);
    // the main side drops a put it cannot place, so an entry only outlives its put on a race; keep few
    dropOldest(this.#abortedEarly, 256);
  }

  /**
   * Lets go of the task's instance while its put `putId` still runs (it ignored its abort and nothing
   * can stop it): the next put of the task starts a new instance instead of queueing behind that put
   * forever, as a pool thread that is terminated loses its instances. The old instance is never
   * stopped. False when the put is no longer running.
   */
  abandon(taskId: string, putId: number): boolean {
    const hosted = this.#tasks.get(taskId);
    if (hosted === undefined || (hosted.starting?.putId !== putId && !hosted.puts.has(putId))) return false;
    this.#tasks.delete(taskId);
    this.#lanes.delete(taskId);
    return true;
  }

  /** Stops this thread's instance of the task, after its running puts (if any) finished. */
  stop(taskId: string): Promise<boolean> {
    const lane = this.#lane(taskId);
    return lane.turn(async () => {
      await lane.drain();
      return this.#stopNow(taskId);
    });
  }

  /**
   * The task's lane: creating the instance, starting its puts and its stop take turns, and its puts
   * overlap only as far as the instance allows (Connect never calls a task concurrently; a task's
   * `putsAtOnce()` may say more). Different task ids run side by side on this thread.
   */
  #lane(taskId: string): TaskLane {
    const lane = this.#lanes.get(taskId);
    if (lane !== undefined) return lane;
    const created = new TaskLane(() => {
      // a task's lane lives while it has work: task ids come and go with connectors
      if (this.#lanes.get(taskId) === created) this.#lanes.delete(taskId);
    });
    this.#lanes.set(taskId, created);
    return created;
  }

  /**
   * In the put's turn: the instance (created or re-created first), room for the put, its batch
   * converted, and put() called. The turn ends there; `running` is the put to its end.
   */
  async #startAndPut(
    lane: TaskLane,
    request: PutRequest,
    began: number,
  ): Promise<{ running: Promise<PutResult> }> {
    let hosted = this.#tasks.get(request.taskId);
    let taskStarted = false;
    if (hosted === undefined || hosted.configKey !== request.configKey) {
      try {
        // a changed config means a new instance, as Connect restarts a reconfigured task
        await lane.drain();
        if (hosted !== undefined) await this.#stopNow(request.taskId).catch(() => undefined);
        hosted = await this.#create(request);
      } catch (error) {
        return { running: Promise.resolve(this.#result(failure(error), began, 0, [], true)) };
      }
      taskStarted = true;
    }
    await lane.room(hosted.putsAtOnce);
    const prepared = await this.#prepare(hosted, lane, request, began, taskStarted);
    if ('result' in prepared) return { running: Promise.resolve(prepared.result) };
    const running = this.#run(hosted, prepared.put, prepared.converted, began, taskStarted);
    lane.track(running);
    return { running };
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
      putsAtOnce: 1,
      backoffMs: undefined,
      starting: undefined,
      puts: new Map(),
      active: undefined,
    };
    instance.initialize(this.#context(hosted));
    try {
      await instance.start(request.props);
      hosted.putsAtOnce = putsAtOnce(instance);
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
      const found = putOf(hosted.puts, record, hosted.putsAtOnce === 1);
      if (found === undefined) return;
      const [put, index] = found;
      put.rejections?.set(
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
        // the put that asked cannot be told apart from the others running: every one gets it
        for (const put of hosted.puts.values()) put.backoffMs = ms;
      },
      abortSignal: () => (hosted.active ?? IDLE_PUT).abort.signal,
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

  /** Before put(): an abort that came first, the assignment (once earlier puts ended), the conversion. */
  async #prepare(
    hosted: Hosted,
    lane: TaskLane,
    request: PutRequest,
    began: number,
    taskStarted: boolean,
  ): Promise<{ result: PutResult } | { put: RunningPut; converted: ConvertedPut }> {
    const early = this.#abortedEarly.get(request.putId);
    if (early !== undefined) {
      this.#abortedEarly.delete(request.putId);
      // the main side no longer waits for this put's records: nothing is written
      return { result: this.#result({ kind: 'aborted', reason: early }, began, 0, [], taskStarted) };
    }
    let convertMs = 0;
    let converterFailures: ConverterFailureInfo[] = [];
    // from here an abort fires this put's signal: put() then starts with it fired
    const put: RunningPut = {
      putId: request.putId,
      abort: new AbortController(),
      current: [],
      rejections: undefined,
      backoffMs: undefined,
    };
    hosted.starting = put;
    hosted.backoffMs = undefined;
    try {
      if (hosted.assignmentVersion !== request.assignment.version) {
        // Connect calls close() and open() between puts, never during one
        await lane.drain();
        await this.#syncAssignment(hosted, request);
      }
      const converted = await convertPut(request.batch, hosted);
      ({ convertMs, converterFailures } = converted);
      // #run takes over `starting` when there is a put to call
      if (converted.records.length > 0) return { put, converted };
      hosted.starting = undefined;
      return { result: this.#result({ kind: 'ok' }, began, convertMs, converterFailures, taskStarted) };
    } catch (error) {
      hosted.starting = undefined;
      return {
        result: this.#result(
          failure(error, hosted.backoffMs),
          began,
          convertMs,
          converterFailures,
          taskStarted,
        ),
      };
    }
  }

  /** Calls put() at once (in the put's turn), then preCommit(); never rejects. */
  async #run(
    hosted: Hosted,
    put: RunningPut,
    converted: ConvertedPut,
    began: number,
    taskStarted: boolean,
  ): Promise<PutResult> {
    const { raws, records, convertMs, converterFailures } = converted;
    put.current = records;
    put.rejections = new Map();
    hosted.puts.set(put.putId, put);
    if (hosted.starting === put) hosted.starting = undefined;
    hosted.active = put;
    try {
      const call = hosted.instance.put(records);
      // with several puts at once, abortSignal() answers for the put being started only
      if (hosted.putsAtOnce > 1) hosted.active = undefined;
      await call;
      await hosted.instance.preCommit(nextOffsets(raws));
      const rejected: RecordRejection[] = [...put.rejections!].map(([index, why]) => ({ index, ...why }));
      const outcome: PutOutcome = rejected.length === 0 ? { kind: 'ok' } : { kind: 'perRecord', rejected };
      return this.#result(outcome, began, convertMs, converterFailures, taskStarted);
    } catch (error) {
      return this.#result(failure(error, put.backoffMs), began, convertMs, converterFailures, taskStarted);
    } finally {
      put.rejections = undefined;
      // An ended put's object may sit in the old generation (it lives through the put); as long as it
      // still pointed at its records, every young collection kept them and their converted values
      // alive until the next full one: a put's worth promoted per young collection (docs/jdbc-sink.md)
      put.current = NO_RECORDS;
      hosted.puts.delete(put.putId);
      if (hosted.active === put) hosted.active = undefined;
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

/** The class a DLQ header should name: the constructor's name (`name` is often left as `Error`). */
function errorClassOf(error: Error): string {
  const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof ctor === 'string' && ctor !== '' ? ctor : error.name;
}
