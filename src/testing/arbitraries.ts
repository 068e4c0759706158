/**
 * fast-check arbitraries for testing sinks and the runtime under share-group delivery: record batches,
 * put outcomes and latencies, lock durations, crash points, and whole fault schedules. Every shape is
 * plain data, so a shrunk counter-example prints as something a person can read and replay.
 */
import fc from 'fast-check';

export interface TestHeader {
  readonly key: string;
  readonly value: string | null;
}

/** One record's content, as a task sees it after conversion; its coordinates come from the model. */
export interface RecordContent {
  readonly key: string | null;
  readonly value: unknown;
  readonly headers: readonly TestHeader[];
  readonly timestamp: number | null;
}

export interface RecordContentOptions {
  /** The converted value. Default: a small struct `{ n: integer, s: string }`. */
  readonly value?: fc.Arbitrary<unknown>;
  readonly maxHeaders?: number;
}

export function recordContentArb(options: RecordContentOptions = {}): fc.Arbitrary<RecordContent> {
  return fc.record({
    key: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    value:
      options.value ??
      fc.record({ n: fc.integer({ min: -1000, max: 1000 }), s: fc.string({ maxLength: 12 }) }),
    headers: fc.array(
      fc.record({
        key: fc.string({ minLength: 1, maxLength: 6 }),
        value: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
      }),
      { maxLength: options.maxHeaders ?? 2 },
    ),
    timestamp: fc.option(fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }), { nil: null }),
  });
}

export interface RecordBatchOptions extends RecordContentOptions {
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** A schedule's record counts that fast-check would refuse with a message naming none of its options. */
function checkLengths(options: RecordBatchOptions): void {
  const { minLength = 1, maxLength = 8 } = options;
  if (maxLength < 1) throw new RangeError(`schedule options: maxLength must be at least 1, got ${maxLength}`);
  if (minLength > maxLength)
    throw new RangeError(`schedule options: minLength (${minLength}) is above maxLength (${maxLength})`);
}

/** The records of a partition, offset 0 first. Shrinks towards one record. */
export function recordBatchArb(options: RecordBatchOptions = {}): fc.Arbitrary<RecordContent[]> {
  return fc.array(recordContentArb(options), {
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 8,
  });
}

/**
 * What one put came to, as the runtime sees it (src/pool/protocol.ts). `perRecord.rejected` are
 * indexes within the batch; `hang` never returns, so only a timeout or the lock ends it.
 */
export type PutOutcomeSpec =
  | { readonly kind: 'ok' }
  | { readonly kind: 'retriable' }
  | { readonly kind: 'fatal' }
  | { readonly kind: 'perRecord'; readonly rejected: readonly number[] }
  | { readonly kind: 'hang' };

/** Outcomes for a batch of `batchSize` records, mostly `ok`. */
export function putOutcomeArb(batchSize: number): fc.Arbitrary<PutOutcomeSpec> {
  const indexes = fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, batchSize - 1) }), {
    minLength: 1,
    maxLength: Math.max(1, batchSize),
  });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<PutOutcomeSpec>({ kind: 'ok' }) },
    { weight: 1, arbitrary: fc.constant<PutOutcomeSpec>({ kind: 'retriable' }) },
    { weight: 1, arbitrary: fc.constant<PutOutcomeSpec>({ kind: 'fatal' }) },
    { weight: 1, arbitrary: indexes.map((rejected): PutOutcomeSpec => ({ kind: 'perRecord', rejected })) },
    { weight: 1, arbitrary: fc.constant<PutOutcomeSpec>({ kind: 'hang' }) },
  );
}

/** One outcome per put, in order. */
export function putOutcomeScheduleArb(
  batchSize: number,
  options: { minLength?: number; maxLength?: number } = {},
): fc.Arbitrary<PutOutcomeSpec[]> {
  return fc.array(putOutcomeArb(batchSize), {
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 8,
  });
}

/** Lock durations in ms; the small end makes expiry cheap to reach, the large end is Kafka's default. */
export function lockDurationArb(options: { min?: number; max?: number } = {}): fc.Arbitrary<number> {
  return fc.integer({ min: options.min ?? 1_000, max: options.max ?? 30_000 });
}

/** Put latencies for a lock: mostly well inside it, some past the renew point, some past the lock. */
export function putLatencyArb(lockDurationMs: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: Math.floor(lockDurationMs / 10) }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: lockDurationMs - 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: lockDurationMs, max: 2 * lockDurationMs }) },
  );
}

/** Where a process crash lands relative to a put: nothing written yet, or written and not acknowledged. */
export type CrashPoint = 'before-put' | 'after-put';

export const crashPointArb: fc.Arbitrary<CrashPoint> = fc.constantFrom<CrashPoint>('before-put', 'after-put');

/**
 * A fault injected around one delivery:
 * - `retriable`: the put fails with a RetriableError (RELEASE), before the task is called or after
 *   it wrote (a lost reply: the classic way to write a record twice);
 * - `fatal`: a non-retriable error before the task is called (REJECT: archived or dead-lettered);
 * - `errant`: records at these batch indexes fail conversion, never reach put() and are REJECTed;
 * - `crash`: the whole process dies, every task instance with it, and no acknowledgement is sent;
 *   the records come back when their locks expire;
 * - `ack-lost`: the acknowledgement never reaches the broker (share session reset); redelivered later.
 */
export type Fault =
  | { readonly kind: 'none' }
  | { readonly kind: 'retriable'; readonly when: CrashPoint }
  | { readonly kind: 'fatal' }
  | { readonly kind: 'errant'; readonly indexes: readonly number[] }
  | { readonly kind: 'crash'; readonly point: CrashPoint }
  | { readonly kind: 'ack-lost' };

export type FaultKind = Fault['kind'];

export const ALL_FAULT_KINDS: readonly FaultKind[] = [
  'none',
  'retriable',
  'fatal',
  'errant',
  'crash',
  'ack-lost',
];

export function faultArb(
  options: { kinds?: readonly FaultKind[]; maxBatch?: number } = {},
): fc.Arbitrary<Fault> {
  const kinds = new Set(options.kinds ?? ALL_FAULT_KINDS);
  const unknown = [...kinds].filter((k) => !ALL_FAULT_KINDS.includes(k));
  if (unknown.length > 0)
    throw new RangeError(
      `faultArb: unknown fault kind ${unknown.map((k) => JSON.stringify(k)).join(', ')}; the kinds are ${ALL_FAULT_KINDS.join(', ')}`,
    );
  const max = Math.max(1, options.maxBatch ?? 8) - 1;
  const choices: { weight: number; arbitrary: fc.Arbitrary<Fault> }[] = [];
  if (kinds.has('none')) choices.push({ weight: 6, arbitrary: fc.constant<Fault>({ kind: 'none' }) });
  if (kinds.has('retriable'))
    choices.push({ weight: 2, arbitrary: crashPointArb.map((when): Fault => ({ kind: 'retriable', when })) });
  if (kinds.has('fatal')) choices.push({ weight: 1, arbitrary: fc.constant<Fault>({ kind: 'fatal' }) });
  if (kinds.has('errant'))
    choices.push({
      weight: 1,
      arbitrary: fc
        .uniqueArray(fc.integer({ min: 0, max }), { minLength: 1, maxLength: 3 })
        .map((indexes): Fault => ({ kind: 'errant', indexes })),
    });
  if (kinds.has('crash'))
    choices.push({ weight: 2, arbitrary: crashPointArb.map((point): Fault => ({ kind: 'crash', point })) });
  if (kinds.has('ack-lost')) choices.push({ weight: 1, arbitrary: fc.constant<Fault>({ kind: 'ack-lost' }) });
  if (choices.length === 0) throw new RangeError('faultArb: no fault kinds to choose from');
  return fc.oneof(...choices);
}

/** One poll result handed to one task instance (pool thread) of the task. */
export interface Delivery {
  readonly instance: number;
  readonly maxRecords: number;
  /** Simulated time the put takes; past the lock (without renewal) the acknowledgement is refused. */
  readonly latencyMs: number;
  readonly fault: Fault;
}

/** Deliveries acquired together whose puts overlap (one at a time per instance). */
export type Round = readonly Delivery[];

export interface SinkSchedule {
  readonly records: readonly RecordContent[];
  readonly lockDurationMs: number;
  readonly deliveryCountLimit: number;
  /** Whether locks are renewed while a put runs (Kafka ≥ 4.2), as the runtime does. */
  readonly renewal: boolean;
  readonly rounds: readonly Round[];
}

export interface ScheduleOptions extends RecordBatchOptions {
  readonly faults?: readonly FaultKind[];
  /** Task instances, as pool threads. Default 2. */
  readonly instances?: number;
  readonly maxRounds?: number;
  /** Deliveries per round at most. Default 2. */
  readonly maxConcurrency?: number;
  readonly records?: fc.Arbitrary<RecordContent[]>;
}

/** Lock durations a schedule picks from; the first (Kafka's default) is where shrinking goes. */
export const SCHEDULE_LOCK_DURATIONS: readonly number[] = [30_000, 1_000, 5_000];

export function deliveryArb(options: ScheduleOptions = {}): fc.Arbitrary<Delivery> {
  const maxBatch = options.maxLength ?? 8;
  return fc.record({
    instance: fc.integer({ min: 0, max: Math.max(1, options.instances ?? 2) - 1 }),
    maxRecords: fc.integer({ min: 1, max: maxBatch }),
    // scaled to the longest lock, so every lock in SCHEDULE_LOCK_DURATIONS sees short and expired puts
    latencyMs: putLatencyArb(Math.max(...SCHEDULE_LOCK_DURATIONS)),
    fault: faultArb({ kinds: options.faults, maxBatch }),
  });
}

/** Rounds of deliveries with faults; shrinks towards fewer rounds, fewer deliveries and no faults. */
export function faultScheduleArb(options: ScheduleOptions = {}): fc.Arbitrary<Round[]> {
  return fc.array(fc.array(deliveryArb(options), { minLength: 1, maxLength: options.maxConcurrency ?? 2 }), {
    maxLength: options.maxRounds ?? 6,
  });
}

/**
 * Everything `checkSinkTask` needs for one run. No part depends on another (no `chain`), so each
 * shrinks on its own and counter-examples come out small.
 */
export function sinkScheduleArb(options: ScheduleOptions = {}): fc.Arbitrary<SinkSchedule> {
  checkLengths(options);
  return fc.record({
    records: options.records ?? recordBatchArb(options),
    // constantFrom shrinks to its first value: Kafka's defaults make the plainest counter-examples
    lockDurationMs: fc.constantFrom(...SCHEDULE_LOCK_DURATIONS),
    deliveryCountLimit: fc.constantFrom(5, 2, 3, 10),
    renewal: fc.boolean(),
    rounds: faultScheduleArb(options),
  });
}
