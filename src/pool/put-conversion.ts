/**
 * A put's records from its request's batch through the task's converters, and the conversions a
 * pool thread runs ahead of their put.
 *
 * Why ahead: a task's puts run one at a time (its instance, as in Connect), and a database sink's put
 * mostly waits for the database. The next put's batch is already on the thread by then (the runner
 * keeps up to `max.inflight.batches` puts in flight), so its records are decoded and converted while
 * the running put waits, instead of after it returned: the thread's critical path per put is the
 * task's own work and the database, not the conversion too. The transforms still run in the put's
 * turn, just before `put()`, as they always did: a transform may keep state across batches.
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

/**
 * Per task id, the conversions started ahead, in the order their requests arrived, and how many
 * requests wait to convert in their own turn (no instance yet, or a new config). A request converts
 * ahead only when none of its task's earlier requests still waits to convert in its turn: the
 * converters then see the batches in the order the task's puts will run, as before.
 */
export class ConversionsAhead {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #inTurn = new Map<string, number>();

  /**
   * Starts converting `request` now with `converters` (the task's instance on this thread, when it
   * has one with the request's config), or returns undefined and counts the request as converting in
   * its turn; its put then calls {@link convertedInTurn} once it has converted or will not.
   */
  start(request: PutRequest, converters: LoadedConverters | undefined): Ahead | undefined {
    const { taskId } = request;
    if (converters === undefined || (this.#inTurn.get(taskId) ?? 0) > 0) {
      this.#inTurn.set(taskId, (this.#inTurn.get(taskId) ?? 0) + 1);
      return undefined;
    }
    const converted = (this.#tails.get(taskId) ?? Promise.resolve()).then(() =>
      convertRequest(request.batch, converters),
    );
    const tail = converted.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(taskId, tail);
    void tail.then(() => {
      if (this.#tails.get(taskId) === tail) this.#tails.delete(taskId);
    });
    return { converters, converted };
  }

  /** A request counted by {@link start} has converted in its turn, or will not convert. */
  convertedInTurn(taskId: string): void {
    const left = (this.#inTurn.get(taskId) ?? 1) - 1;
    if (left > 0) this.#inTurn.set(taskId, left);
    else this.#inTurn.delete(taskId);
  }

  /** Conversions still started ahead for the task: a put converting in its turn goes after them. */
  tail(taskId: string): Promise<void> {
    return this.#tails.get(taskId) ?? Promise.resolve();
  }
}
