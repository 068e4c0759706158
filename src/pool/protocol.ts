/**
 * Messages between PutPool (main thread) and the worker entry. Only plain data crosses: piscina keeps
 * nothing of a thrown error but its message and stack, so the worker returns a result union instead.
 */
import type { ConvertersConfig } from '../connect/converters/registry.js';
import type { TopicPartition } from '../connect/sink-record.js';
import type { TransformsConfig } from '../connect/transforms/spec.js';
import type { RawRecord } from '../connect/raw-record.js';
import type { WireBatch } from './wire-batch.js';

export interface Assignment {
  /** Bumped by the caller whenever `partitions` changes; each thread diffs and calls close/open. */
  readonly version: number;
  readonly partitions: readonly TopicPartition[];
}

export interface PutRequest {
  /** Unique per pool: names the put in an abort request. */
  readonly putId: number;
  readonly taskId: string;
  /** Identifies props + converters; a different key makes the thread stop and re-create the instance. */
  readonly configKey: string;
  readonly props: Readonly<Record<string, string>>;
  readonly converters: ConvertersConfig;
  /** The connector's transform chain, applied after the converters; none when absent. */
  readonly transforms?: TransformsConfig | undefined;
  readonly assignment: Assignment;
  /** Encoded for a worker thread; the records themselves when the put runs on the event loop. */
  readonly batch: WireBatch | readonly RawRecord[];
}

export interface RecordRejection {
  /** Index of the record in the batch that was passed to `put()` on the main side. */
  readonly index: number;
  readonly message: string;
  /** The reported error's class (its constructor's name), when it was an Error: for DLQ headers. */
  readonly errorClass?: string | undefined;
  readonly stack?: string | undefined;
}

/** A record that never reached `put()` because a converter or a transform failed on it: an errant record. */
export interface ConverterFailureInfo {
  readonly index: number;
  readonly code: 'SHARESINK_CONVERTER_FAILED' | 'SHARESINK_TRANSFORM_FAILED';
  readonly message: string;
  /** The class that failed: the converter, or the transform's `type` as configured. */
  readonly converter: string;
  /** Where it failed: one of the converters, or the transform chain. */
  readonly part: 'key' | 'value' | 'header' | 'transform';
}

export interface ErrorInfo {
  readonly message: string;
  readonly stack?: string | undefined;
  /** The thrown error's `code`, when it had a string one (SharesinkError, Node system errors). */
  readonly code?: string | undefined;
}

/**
 * What a put came to.
 * - ok: every converted record was written; ACCEPT / commit the batch.
 * - retriable: the task threw RetriableError; RELEASE (share) or retry after `backoffMs` (classic).
 * - fatal: any other error, or the task could not start; REJECT (share) or fail the task (classic).
 * - perRecord: put succeeded but the task reported some records as errant; REJECT those, ACCEPT the rest.
 * - aborted: the caller's signal fired, or the put's thread was lost under it (main side only); nothing
 *   is known about the records.
 */
export type PutOutcome =
  | { readonly kind: 'ok' }
  | ({ readonly kind: 'retriable'; readonly backoffMs?: number | undefined } & ErrorInfo)
  | ({ readonly kind: 'fatal' } & ErrorInfo)
  | { readonly kind: 'perRecord'; readonly rejected: readonly RecordRejection[] }
  | {
      readonly kind: 'aborted';
      readonly reason: string;
      /**
       * The put was not aborted itself: its thread was terminated for another put that ignored its
       * abort, or crashed while other puts ran on it. Nothing is known about its records.
       */
      readonly threadLost?: true | undefined;
    };

export interface PutStats {
  /** Wall time of conversion + put + preCommit in the worker (main-side wall time when aborted). */
  readonly durationMs: number;
  /** Converters and the transform chain. */
  readonly convertMs: number;
  /** Records that failed conversion: they were not passed to `put()`; the caller decides their ack. */
  readonly converterFailures: readonly ConverterFailureInfo[];
  /** Worker thread id, or -1 when the put never reached one. */
  readonly threadId: number;
  /** True when this put created (and started) a new task instance in its thread. */
  readonly taskStarted: boolean;
}

export type PutResult = PutOutcome & PutStats;

export interface WorkerData {
  readonly connectorModule: string;
  readonly controlChannel: string;
}

/** Broadcast from the main thread on `<controlChannel>:request`. */
export interface StopRequest {
  readonly op: 'stop';
  readonly requestId: number;
  readonly taskId: string;
}

/** Broadcast too: the thread running (or about to run) put `putId` fires that put's abort signal. */
export interface AbortRequest {
  readonly op: 'abort';
  readonly putId: number;
  readonly reason: string;
}

/**
 * Posted by workers on `<controlChannel>:reply`; `ready` announces a thread that can take requests,
 * once it has tried to import the connector module: `error` says why it could not.
 */
export type ControlReply =
  | { readonly op: 'ready'; readonly threadId: number; readonly error?: ErrorInfo | undefined }
  | {
      readonly op: 'stopped';
      readonly requestId: number;
      readonly threadId: number;
      readonly hadInstance: boolean;
      readonly error?: ErrorInfo | undefined;
    };
