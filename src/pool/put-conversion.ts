/**
 * A put's records from its request's batch through the task's converters, and the conversion a pool
 * thread runs ahead of its put.
 *
 * Why ahead: a task's puts run one at a time (its instance, as in Connect), and a database sink's put
 * mostly waits for the database. The next put's batch is usually on the thread by then (the runner
 * keeps up to `max.inflight.batches` puts in flight), so its records are decoded and converted while
 * the running put waits, once that put has started, instead of after it returned: the thread's
 * critical path per put is the task's own work and the database, not the conversion too. One batch
 * ahead, no more. The transforms still run in the put's turn, just before `put()`, as they always
 * did: a transform may keep state across batches.
 */
import { convertBatch, prepareBatch } from '../connect/converters/convert-batch.js';
import type { LoadedConverters } from '../connect/converters/registry.js';
import type { RawRecord } from '../connect/raw-record.js';
import type { SinkRecord } from '../connect/sink-record.js';
import type { ConverterFailureInfo, PutRequest } from './protocol.js';
import { decodeWireBatch, isWireBatch } from './wire-batch.js';

export interface Converted {
  readonly raws: readonly RawRecord[];
  readonly records: SinkRecord[];
  readonly failures: ConverterFailureInfo[];
  readonly convertMs: number;
}

/** Decodes the batch and runs the key, value and header converters over it (not the transforms). */
export async function convertRequest(
  batch: PutRequest['batch'],
  converters: LoadedConverters,
): Promise<Converted> {
  const started = performance.now();
  const raws = isWireBatch(batch) ? decodeWireBatch(batch) : batch;
  // schemas a registry converter lacks are fetched here, once per batch; unreachable = retriable
  await prepareBatch(raws, converters);
  const converted = convertBatch(raws, converters);
  const failures = converted.failures.map(({ index, error }): ConverterFailureInfo => ({
    index,
    code: 'SHARESINK_CONVERTER_FAILED',
    message: error.message,
    converter: error.converter,
    part: error.part,
  }));
  return { raws, records: converted.records, failures, convertMs: performance.now() - started };
}

/** A conversion started ahead of its put, with the converters it used. */
export interface Ahead {
  readonly converters: LoadedConverters;
  readonly converted: Promise<Converted>;
}

/** A task's instance on this thread, as far as converting its records goes. */
export interface ConvertingInstance {
  readonly configKey: string;
  readonly converters: LoadedConverters;
}

/** One put request of a task, from its arrival on the thread until its put has its records. */
export interface Pending {
  readonly request: PutRequest;
  /** Set when its conversion started ahead of its turn. */
  ahead: Ahead | undefined;
}

/**
 * Per task id, the requests that arrived and have not converted yet, in arrival order (the order their
 * puts run in), and whether one conversion runs or waits ahead of its put. Conversions start in that
 * order, one ahead at a time: the next batch converts while the running put waits, and the batches
 * queued behind it stay raw wire bytes (a converted batch held through a put is young garbage the
 * collector copies, raw bytes are one buffer), so the converters see the batches in the order the
 * task's puts run, as before.
 */
export class ConversionsAhead {
  readonly #waiting = new Map<string, Pending[]>();
  /** Tasks with a conversion started ahead and not yet taken by its put, or one running in its turn. */
  readonly #busy = new Set<string>();

  /**
   * A request arrived: it converts now if it is next, nothing else is converting for its task, and
   * the task has an instance on this thread (`instance`) with the request's config.
   */
  arrived(request: PutRequest, instance: ConvertingInstance | undefined): Pending {
    const pending: Pending = { request, ahead: undefined };
    const queue = this.#waiting.get(request.taskId);
    if (queue === undefined) this.#waiting.set(request.taskId, [pending]);
    else queue.push(pending);
    this.next(request.taskId, instance);
    return pending;
  }

  /**
   * Starts converting the task's next waiting request with the converters of its instance on this
   * thread, unless a conversion is under way or waiting for its put, or the request has another config
   * (a new instance will convert it in its turn); called when a put has started, and on arrival.
   */
  next(taskId: string, instance: ConvertingInstance | undefined): void {
    if (instance === undefined || this.#busy.has(taskId)) return;
    const head = this.#waiting.get(taskId)?.[0];
    if (head === undefined || head.request.configKey !== instance.configKey) return;
    const { converters } = instance;
    const pending = this.#take(taskId)!;
    this.#busy.add(taskId);
    const converted = convertRequest(pending.request.batch, converters);
    // taken by its put, or dropped with it (an abort before its turn): never an unhandled rejection
    converted.catch(() => undefined);
    pending.ahead = { converters, converted };
  }

  /**
   * The put of `pending` is in its turn and takes its records: those converted ahead with its
   * instance's converters, or converted now (then nothing else converts meanwhile).
   */
  async take(pending: Pending, converters: LoadedConverters): Promise<Converted> {
    const { taskId } = pending.request;
    const ahead = pending.ahead;
    if (ahead !== undefined) {
      pending.ahead = undefined;
      try {
        if (ahead.converters === converters) return await ahead.converted;
        await ahead.converted.catch(() => undefined);
      } finally {
        this.#busy.delete(taskId);
      }
    }
    this.#drop(pending);
    this.#busy.add(taskId);
    try {
      return await convertRequest(pending.request.batch, converters);
    } finally {
      this.#busy.delete(taskId);
    }
  }

  /** The put of `pending` ended without taking its records (aborted before its turn, no instance). */
  done(pending: Pending): void {
    this.#drop(pending);
    if (pending.ahead !== undefined) {
      pending.ahead = undefined;
      this.#busy.delete(pending.request.taskId);
    }
  }

  #take(taskId: string): Pending | undefined {
    const queue = this.#waiting.get(taskId);
    const pending = queue?.shift();
    if (queue?.length === 0) this.#waiting.delete(taskId);
    return pending;
  }

  #drop(pending: Pending): void {
    const { taskId } = pending.request;
    const queue = this.#waiting.get(taskId);
    const at = queue?.indexOf(pending) ?? -1;
    if (at < 0) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.#waiting.delete(taskId);
  }
}
