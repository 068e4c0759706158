/** A put request built from a task and its batch, the same way whichever runner carries it. */
import { DEFAULT_CONVERTERS } from '../connect/converters/registry.js';
import type { RawRecord } from '../connect/raw-record.js';
import { NO_TRANSFORMS } from '../connect/transforms/spec.js';
import type { Assignment, PutRequest, PutResult, PutStats } from './protocol.js';
import type { PoolTask } from './put-runner.js';
import type { WireBatch } from './wire-batch.js';

const NO_ASSIGNMENT: Assignment = Object.freeze({ version: 0, partitions: [] });

export class PutRequests {
  readonly #configKeys = new WeakMap<PoolTask, string>();

  build(task: PoolTask, putId: number, batch: WireBatch | readonly RawRecord[]): PutRequest {
    return {
      putId,
      taskId: task.id,
      configKey: this.#configKey(task),
      props: task.props,
      converters: task.converters ?? DEFAULT_CONVERTERS,
      transforms: task.transforms ?? NO_TRANSFORMS,
      assignment: task.assignment ?? NO_ASSIGNMENT,
      batch,
    };
  }

  /** Identifies props + converters + transforms: a different key makes the host re-create the instance. */
  #configKey(task: PoolTask): string {
    let key = this.#configKeys.get(task);
    if (key === undefined) {
      key = JSON.stringify([
        task.props,
        task.converters ?? DEFAULT_CONVERTERS,
        task.transforms ?? NO_TRANSFORMS,
      ]);
      this.#configKeys.set(task, key);
    }
    return key;
  }
}

/** The stats of a put that produced none (it never ran, or its thread went away). */
export function noStats(durationMs: number, threadId = -1): PutStats {
  return { durationMs, convertMs: 0, converterFailures: [], threadId, taskStarted: false };
}

export function abortedResult(reason: string, durationMs: number, threadId = -1): PutResult {
  return { kind: 'aborted', reason, ...noStats(durationMs, threadId) };
}
