/**
 * The pure part of the rebalance scenario (bench/scenarios/rebalance.ts): the sinks' write logs parsed,
 * then sampled every `intervalMs` into records written and produced per interval, the longest wait of
 * any partition's oldest unwritten record, records written twice, and, per change (a `tasks.max` PUT, a
 * worker added or killed), the longest wait, the time to full rate and the time to caught up. Definitions: bench/README.md,
 * "Rebalance (scenario 11)".
 */

/** One record put by the sink: its partition and offset, its CreateTime and when its put returned. */
export interface WrittenRecord {
  readonly partition: number;
  readonly offset: number;
  readonly createMs: number;
  readonly writeMs: number;
}

/** A moment of the run that may move partitions (the x of a marker on the plot). */
export interface Change {
  readonly label: string;
  readonly atMs: number;
}

export interface Sample {
  /** End of the interval, ms after `startMs`. */
  readonly tMs: number;
  /** Records put in the interval (writes of a record already written included). */
  readonly written: number;
  /**
   * Records whose CreateTime falls in the interval: from the producer's own sends when given
   * (`produced`), else from the records written (then a record never written is not counted).
   */
  readonly produced: number;
  /**
   * At the interval's end: max over partitions of (now − CreateTime of its oldest record produced and
   * not yet written), 0 when every partition is caught up.
   */
  readonly maxWaitMs: number;
}

export interface ChangeResult {
  readonly label: string;
  /** ms after `startMs`. */
  readonly atMs: number;
  /** The longest `maxWaitMs` from the change to the next one (or the end). */
  readonly longestWaitMs: number;
  /** When the longest wait of the segment was reached, ms after `startMs`. */
  readonly peakAtMs: number;
  /**
   * 0 when the segment's longest wait stayed ≤ `settledWaitMs` (no pause seen). Else the change → the
   * end of the first interval, at or after the peak, whose trailing-second written count is at least
   * `fullRate` × its trailing-second produced count.
   */
  readonly timeToFullRateMs: number;
  /** The same to the first interval at or after the peak whose wait is back ≤ `settledWaitMs`. */
  readonly timeToCaughtUpMs: number;
  /** False when full rate or the caught-up wait was not reached before the next change. */
  readonly recovered: boolean;
}

export interface RebalanceAnalysis {
  readonly intervalMs: number;
  readonly samples: Sample[];
  /** Records put (every write). */
  readonly writes: number;
  /** Distinct records put. */
  readonly distinct: number;
  /** Writes beyond the first of each record: records written twice (or more) count once per extra write. */
  readonly duplicates: number;
  /** Records written more than once. */
  readonly recordsWrittenTwice: number;
  /** The longest `maxWaitMs` over the samples from `measureFromMs` on. */
  readonly longestWaitMs: number;
  /** Median `maxWaitMs` over the samples from `measureFromMs` to the first change: the steady wait. */
  readonly steadyWaitP50Ms: number;
  readonly changes: ChangeResult[];
}

/**
 * Parses write-log text: one line per put, `r <write epoch ms> <p>:<offset>:<create ms>,…` (the same
 * format from bench/rebalance-plugin/rebalance-sink.ts and bench/java/SleepSinkTask.java); other lines are skipped, as is
 * a partial last line.
 */
export function parseWriteLog(text: string, into: WrittenRecord[] = []): WrittenRecord[] {
  // only whole lines: a file being appended to may end in the middle of one
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (!line.startsWith('r ')) continue;
    const space = line.indexOf(' ', 2);
    if (space < 0) continue;
    const writeMs = Number(line.slice(2, space));
    if (!Number.isFinite(writeMs)) continue;
    for (const item of line.slice(space + 1).split(',')) {
      const parts = item.split(':');
      if (parts.length !== 3) continue;
      const [partition, offset, createMs] = parts.map(Number) as [number, number, number];
      if (!Number.isInteger(partition) || !Number.isInteger(offset) || !Number.isFinite(createMs)) continue;
      into.push({ partition, offset, createMs, writeMs });
    }
  }
  return into;
}

/** One write-log line for a put of `records` ([partition, offset, CreateTime]) that returned at `writeMs`. */
export function writeLogLine(
  writeMs: number,
  records: ReadonlyArray<readonly [number, number, number]>,
): string {
  return `r ${writeMs} ${records.map(([p, o, t]) => `${p}:${o}:${t}`).join(',')}\n`;
}

interface FirstWrite {
  createMs: number;
  writeMs: number;
  count: number;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Samples a run. `startMs`/`endMs` (epoch ms) bound the samples. A record never written is not in the
 * logs (its CreateTime is unknown): `unwrittenCount` counts those. `fullRate`: the share of the
 * produced count that counts as full rate (0.9).
 */
export function analyzeRebalance(o: {
  readonly records: readonly WrittenRecord[];
  readonly startMs: number;
  readonly endMs: number;
  readonly intervalMs?: number;
  readonly changes: readonly Change[];
  /** The producer's sends, [CreateTime (epoch ms), records]: the `produced` counts. */
  readonly produced?: ReadonlyArray<readonly [number, number]>;
  /** CreateTimes of records produced and never written: they wait until `endMs`. */
  readonly unwritten?: readonly number[];
  /** Samples before this epoch ms (the start-up) are left out of `longestWaitMs`; default `startMs`. */
  readonly measureFromMs?: number;
  readonly fullRate?: number;
  readonly trailingIntervals?: number;
  /** A wait at or below this is no pause (and the caught-up level); default 1000 ms. */
  readonly settledWaitMs?: number;
}): RebalanceAnalysis {
  const iv = o.intervalMs ?? 100;
  const fullRate = o.fullRate ?? 0.9;
  const settled = o.settledWaitMs ?? 1000;
  const trailing = o.trailingIntervals ?? Math.max(1, Math.round(1000 / iv));
  const n = Math.max(1, Math.ceil((o.endMs - o.startMs) / iv));
  const written = new Float64Array(n);
  const produced = new Float64Array(n);
  // oldest CreateTime unwritten at each sample's time (+∞: nothing waiting)
  const oldest = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const index = (ms: number) => Math.floor((ms - o.startMs) / iv);
  const first = new Map<number, Map<number, FirstWrite>>();
  let writes = 0;
  for (const r of o.records) {
    writes++;
    const k = index(r.writeMs);
    if (k >= 0 && k < n) written[k]!++;
    let byOffset = first.get(r.partition);
    if (!byOffset) first.set(r.partition, (byOffset = new Map()));
    const seen = byOffset.get(r.offset);
    if (seen) {
      seen.count++;
      if (r.writeMs < seen.writeMs) seen.writeMs = r.writeMs;
    } else byOffset.set(r.offset, { createMs: r.createMs, writeMs: r.writeMs, count: 1 });
  }
  let distinct = 0;
  let twice = 0;
  for (const [createMs, count] of o.produced ?? []) {
    const kp = index(createMs);
    if (kp >= 0 && kp < n) produced[kp]! += count;
  }
  const cover = (createMs: number, untilMs: number) => {
    const kp = index(createMs);
    if (o.produced === undefined && kp >= 0 && kp < n) produced[kp]!++;
    // sample k is taken at startMs + (k + 1) × iv: the record waits there when createMs ≤ t < untilMs
    let k = Math.max(0, Math.ceil((createMs - o.startMs) / iv) - 1);
    for (; k < n; k++) {
      const t = o.startMs + (k + 1) * iv;
      if (t >= untilMs) break;
      if (createMs < oldest[k]!) oldest[k] = createMs;
    }
  };
  for (const byOffset of first.values())
    for (const w of byOffset.values()) {
      distinct++;
      if (w.count > 1) twice++;
      cover(w.createMs, w.writeMs);
    }
  for (const createMs of o.unwritten ?? []) cover(createMs, Number.POSITIVE_INFINITY);
  const samples: Sample[] = [];
  for (let k = 0; k < n; k++) {
    const t = o.startMs + (k + 1) * iv;
    const wait = Number.isFinite(oldest[k]!) ? Math.max(0, t - oldest[k]!) : 0;
    samples.push({ tMs: (k + 1) * iv, written: written[k]!, produced: produced[k]!, maxWaitMs: wait });
  }
  const measureFrom = (o.measureFromMs ?? o.startMs) - o.startMs;
  const changes = [...o.changes].sort((a, b) => a.atMs - b.atMs);
  const firstChange = changes.length > 0 ? changes[0]!.atMs - o.startMs : Number.POSITIVE_INFINITY;
  const measuredSamples = samples.filter((s) => s.tMs > measureFrom);
  const longestWaitMs = measuredSamples.reduce((m, s) => Math.max(m, s.maxWaitMs), 0);
  const steadyWaitP50Ms = median(measuredSamples.filter((s) => s.tMs <= firstChange).map((s) => s.maxWaitMs));
  // trailing sums for the full-rate test
  const below = samples.map((_, k) => {
    let w = 0;
    let p = 0;
    for (let j = Math.max(0, k - trailing + 1); j <= k; j++) {
      w += written[j]!;
      p += produced[j]!;
    }
    return p > 0 && w < fullRate * p;
  });
  const changeResults = changes.map((c, i): ChangeResult => {
    const from = c.atMs - o.startMs;
    const to = i + 1 < changes.length ? changes[i + 1]!.atMs - o.startMs : n * iv;
    const ks = samples.flatMap((x, k) => (x.tMs > from && x.tMs <= to ? [k] : []));
    let peak = ks[0];
    for (const k of ks) if (samples[k]!.maxWaitMs > samples[peak!]!.maxWaitMs) peak = k;
    const longest = peak === undefined ? 0 : samples[peak]!.maxWaitMs;
    const base = { label: c.label, atMs: from, longestWaitMs: longest };
    if (peak === undefined || longest <= settled)
      return {
        ...base,
        peakAtMs: peak === undefined ? from : samples[peak]!.tMs,
        timeToFullRateMs: 0,
        timeToCaughtUpMs: 0,
        recovered: true,
      };
    const after = ks.filter((k) => k >= peak!);
    const full = after.find((k) => !below[k]);
    const caught = after.find((k) => samples[k]!.maxWaitMs <= settled);
    const lastK = ks[ks.length - 1]!;
    return {
      ...base,
      peakAtMs: samples[peak]!.tMs,
      timeToFullRateMs: (full === undefined ? samples[lastK]!.tMs : samples[full]!.tMs) - from,
      timeToCaughtUpMs: (caught === undefined ? samples[lastK]!.tMs : samples[caught]!.tMs) - from,
      recovered: full !== undefined && caught !== undefined,
    };
  });
  return {
    intervalMs: iv,
    samples,
    writes,
    distinct,
    duplicates: writes - distinct,
    recordsWrittenTwice: twice,
    longestWaitMs,
    steadyWaitP50Ms,
    changes: changeResults,
  };
}

/**
 * The CreateTimes of the records never written, from the producer's sends: the producer sends record
 * *i* (counting from 0 over all its sends) to partition *i* mod `partitions`, one send at a time, so
 * the *j*-th record sent to a partition has offset *j* in a fresh topic.
 */
export function unwrittenFromSends(
  records: readonly WrittenRecord[],
  sends: ReadonlyArray<readonly [number, number]>,
  partitions: number,
): number[] {
  const written = new Set(records.map((r) => r.partition * 2 ** 32 + r.offset));
  const next = new Array<number>(partitions).fill(0);
  const out: number[] = [];
  let i = 0;
  for (const [createMs, count] of sends)
    for (let k = 0; k < count; k++, i++) {
      const p = i % partitions;
      if (!written.has(p * 2 ** 32 + next[p]!)) out.push(createMs);
      next[p]!++;
    }
  return out;
}

/**
 * Records produced and never written: per partition, the topic's end offset (a fresh topic: offsets
 * from 0) minus the distinct offsets in `records`.
 */
export function unwrittenCount(
  records: readonly WrittenRecord[],
  endOffsets: ReadonlyMap<number, number>,
): number {
  const seen = new Map<number, Set<number>>();
  for (const r of records) {
    let s = seen.get(r.partition);
    if (!s) seen.set(r.partition, (s = new Set()));
    s.add(r.offset);
  }
  let missing = 0;
  for (const [p, end] of endOffsets) missing += Math.max(0, end - (seen.get(p)?.size ?? 0));
  return missing;
}
