/**
 * What a bench run measures: the short and full plans (record counts, latency matrix, windows,
 * repeats), --scale, the quiet gate's threshold and the fill producer's settings. See bench/README.md.
 */

export interface Plan {
  readonly name: 'short' | 'full';
  /** Records per pre-filled topic, by record size. */
  readonly records: Readonly<Record<'100' | '1024', number>>;
  readonly partitions: readonly number[];
  readonly latency: {
    readonly sinkMs: readonly number[];
    readonly multipliers: readonly number[];
    readonly partitions: readonly number[];
    /** max.poll.records and (≈) records per producer batch: the put size of the latency scenario. */
    readonly maxPollRecords: number;
    readonly producerBatchBytes: number;
    readonly topicRecords: number;
    readonly warmupMs: number;
    readonly windowMs: number;
  };
  /**
   * Rows of scenario 4, the same for the sink and the bare loop. 200,000 in both plans: at
   * 50,000 the sink's steady part lasted about a second with the JIT still compiling, and its CPU per
   * row read 25–35 % above a 200,000-row run's (docs/jdbc-sink.md, Performance).
   */
  readonly pgRows: number;
  /**
   * Rows of scenario 10 (the JDBC sink against bare driver loops), the same for the sink and the loops.
   * 1,000,000 in both plans: at 200,000 the sink's steady part lasted about two seconds, most of it
   * with V8 and the broker still compiling (the broker's C2 thread took 14 % of the machine five
   * seconds into a run), which the bare loops, without Kafka, never pay (docs/jdbc-sink.md).
   */
  readonly jdbcRows: number;
  readonly e2e: {
    readonly seconds: number;
    readonly warmupSeconds: number;
    /** Fractions of the maximum rate to produce at; the first one is repeated plan.repeats times. */
    readonly fractions: readonly number[];
  };
  /** Total time the run may spend waiting for a quiet machine before measurements (see waitForQuiet). */
  readonly quietBudgetMs: number;
  /** Runs of each drain measurement behind a headline ratio (the best counts). */
  readonly repeats: number;
  /** Scenario 9: records per topic (Avro and JSON with schemas). */
  readonly converterRecords: number;
}

export const SHORT: Plan = {
  name: 'short',
  records: { '100': 500_000, '1024': 150_000 },
  partitions: [1, 6],
  latency: {
    sinkMs: [5, 20],
    multipliers: [1, 2, 4, 8],
    partitions: [1],
    maxPollRecords: 50,
    producerBatchBytes: 5600,
    topicRecords: 400_000,
    warmupMs: 1500,
    windowMs: 3000,
  },
  pgRows: 200_000,
  jdbcRows: 1_000_000,
  e2e: { seconds: 8, warmupSeconds: 2, fractions: [0.5, 0.25] },
  quietBudgetMs: 45_000,
  repeats: 2,
  converterRecords: 200_000,
};

export const FULL: Plan = {
  name: 'full',
  records: { '100': 2_000_000, '1024': 500_000 },
  partitions: [1, 6],
  latency: {
    sinkMs: [5, 20],
    multipliers: [1, 2, 4, 8],
    partitions: [1, 6],
    maxPollRecords: 50,
    producerBatchBytes: 5600,
    topicRecords: 1_500_000,
    warmupMs: 2000,
    windowMs: 10_000,
  },
  pgRows: 200_000,
  jdbcRows: 1_000_000,
  e2e: { seconds: 30, warmupSeconds: 5, fractions: [0.5, 0.25] },
  quietBudgetMs: 600_000,
  repeats: 3,
  converterRecords: 1_000_000,
};

/** A measurement starts once the whole machine is below this many busy cores (or the wait budget is spent). */
export const QUIET_CORES = 0.5;

/**
 * ProducerPerformance settings for the pre-filled topics. A long linger makes every producer batch full
 * (16 KB) whatever the fill rate, so topics have the same layout from run to run: the share fetches'
 * batch_optimized acquisition and the put sizes follow the producer batches.
 */
export const FILL_PROPS = { acks: '1', 'linger.ms': '50', 'batch.size': '16384' } as const;

export function scalePlan(p: Plan, k: number): Plan {
  if (!(k > 0) || k === 1) return p;
  const c = (v: number) => Math.max(1000, Math.round(v * k));
  return {
    ...p,
    records: { '100': c(p.records['100']), '1024': c(p.records['1024']) },
    latency: {
      ...p.latency,
      topicRecords: c(p.latency.topicRecords),
      warmupMs: Math.max(500, Math.round(p.latency.warmupMs * k)),
      windowMs: Math.max(1000, Math.round(p.latency.windowMs * k)),
    },
    pgRows: c(p.pgRows),
    jdbcRows: c(p.jdbcRows),
    converterRecords: c(p.converterRecords),
    e2e: { ...p.e2e, seconds: Math.max(3, Math.round(p.e2e.seconds * k)), warmupSeconds: 1 },
  };
}
