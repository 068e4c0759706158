/**
 * One run of a sink task through a delivery schedule, with a SharePartitionModel deciding what is
 * delivered, redelivered, acknowledged and archived. The task runs in-process, its instances standing
 * in for pool threads; time is simulated (put latencies, lock expiry, renewals), the task's own I/O
 * is real.
 *
 * A round acquires its deliveries at one instant, runs their puts (overlapping across instances, one
 * at a time per instance, as the pool does), then applies what happened at each put's simulated end:
 * renewals every half lock, the acknowledgements, or a crash. After the scheduled rounds a fault-free
 * drain delivers whatever is left, so every record ends ACCEPTed or archived.
 */
import { isRetriableError } from '../connect/errors.js';
import { transientCause } from '../connect/transient-errors.js';
import { ALL_PARTITIONS, BATCH_INDEX, type SinkRecord, type TopicPartition } from '../connect/sink-record.js';
import type { SinkTask, SinkTaskContext } from '../connect/sink-task.js';
import type { Delivery, Round, SinkSchedule } from './arbitraries.js';
import { SharePartitionModel, type ModelAckType, type ModelAcquiredRecord } from './share-partition-model.js';
import {
  nextOffsets,
  recordId,
  settleWithin,
  TaskHungError,
  toSinkRecord,
  type MapKey,
  type MapValue,
} from './task-calls.js';
import { checkTask, KitUsageError } from './usage.js';

/** The kit's puts are never cut short from outside: the schedule's faults play that part. */
const NEVER_ABORTED = new AbortController().signal;

/** What a run is about; `props` are passed to every instance's `start()`. */
export interface RunContext {
  /** 0 for the first run of a check, then 1, 2, …: use it to give each run its own table, file or key space. */
  readonly index: number;
  readonly topic: string;
  readonly partition: number;
  readonly props: Readonly<Record<string, string>>;
}

export interface SinkRunOptions {
  /** Shapes the value handed to put(), e.g. to embed the record id in sinks that do not keep coordinates. */
  readonly mapValue?: MapValue | undefined;
  /** Shapes the key handed to put(), e.g. one key per record for a sink that upserts by key. */
  readonly mapKey?: MapKey | undefined;
  /** Real time a single task call may take before the run fails as hung. */
  readonly callTimeoutMs: number;
}

/** `byTask`: why the task itself rejected records (a non-retriable throw, errant reports), by offset. */
type Verdict =
  | {
      readonly kind: 'accept';
      readonly rejected: ReadonlySet<number>;
      readonly byTask: ReadonlyMap<number, string>;
    }
  | { readonly kind: 'release' | 'reject'; readonly why: string; readonly byTask?: string }
  | { readonly kind: 'crash' | 'ack-lost' | 'nothing' };

interface Live {
  readonly task: SinkTask;
  /** Errant reports of the put in progress, by batch index; undefined between puts. */
  errant: Map<number, string> | undefined;
  batch: readonly SinkRecord[];
}

interface Step {
  readonly delivery: Delivery;
  readonly order: number;
  readonly acquired: readonly ModelAcquiredRecord[];
  verdict: Verdict;
  lines: string[];
}

export class SinkRun {
  readonly model: SharePartitionModel;
  readonly trace: string[] = [];
  /** How often each record was passed to put(). */
  readonly putCounts = new Map<string, number>();
  deliveries = 0;
  redeliveries = 0;
  /** Records the broker took an ACCEPT for. */
  accepted = 0;
  /** Offsets the task itself had REJECTed (the broker took it), and why. */
  readonly taskRejects = new Map<number, string>();
  /** Task calls that failed or reported errant records, and the last such line of the trace. */
  taskFailures = 0;
  lastTaskFailure: string | undefined;
  readonly #factory: () => SinkTask;
  readonly #schedule: SinkSchedule;
  readonly #run: RunContext;
  readonly #options: SinkRunOptions;
  readonly #partitions: readonly TopicPartition[];
  readonly #live = new Map<number, Live>();
  readonly #lost: SinkTask[] = [];
  #now = 0;
  #generation = 0;

  constructor(factory: () => SinkTask, schedule: SinkSchedule, run: RunContext, options: SinkRunOptions) {
    this.#factory = factory;
    this.#schedule = schedule;
    this.#run = run;
    this.#options = options;
    // share mode: open() gets one ALL_PARTITIONS entry per topic (docs/connector-authoring.md)
    this.#partitions = [{ topic: run.topic, partition: ALL_PARTITIONS }];
    this.model = new SharePartitionModel({
      records: schedule.records.length,
      lockDurationMs: schedule.lockDurationMs,
      deliveryCountLimit: schedule.deliveryCountLimit,
    });
  }

  async execute(): Promise<void> {
    for (const [i, round] of this.#schedule.rounds.entries()) {
      this.trace.push(`round ${i + 1}:`);
      await this.#round(round);
    }
    this.trace.push('drain (no faults) until every record is ACCEPTed or archived:');
    await this.#drain();
    for (const [slot, live] of this.#live) {
      this.#live.delete(slot);
      await this.#call(live.task.close(this.#partitions), 'close()').catch((e: unknown) =>
        this.#failedStop(slot, e),
      );
      await this.#call(live.task.stop(), 'stop()').catch((e: unknown) => this.#failedStop(slot, e));
    }
  }

  /** Stops instances lost in crashes (and any left by a failed run) to free their resources; errors ignored. */
  async dispose(): Promise<void> {
    const tasks = [...this.#lost, ...[...this.#live.values()].map((l) => l.task)];
    this.#lost.length = 0;
    this.#live.clear();
    await Promise.all(tasks.map((t) => this.#call(t.stop(), 'stop()').catch(() => undefined)));
  }

  async #round(round: Round): Promise<void> {
    const t0 = this.#now;
    this.#expire(t0);
    const member = this.#member();
    const steps: Step[] = round.map((delivery, order) => {
      const acquired = this.model.acquire(member, delivery.maxRecords, t0);
      const what = acquired.length === 0 ? 'nothing' : acquired.map((a) => this.#label(a)).join(', ');
      this.#log(`instance ${delivery.instance} acquires up to ${delivery.maxRecords}: ${what}`);
      return { delivery, order, acquired, verdict: { kind: 'nothing' }, lines: [] };
    });
    const byInstance = new Map<number, Step[]>();
    for (const s of steps)
      byInstance.set(s.delivery.instance, [...(byInstance.get(s.delivery.instance) ?? []), s]);
    try {
      await Promise.all(
        [...byInstance.values()].map(async (queue) => {
          for (const s of queue) s.verdict = await this.#put(s);
        }),
      );
    } finally {
      // also when a call hung: the trace then ends with it
      for (const s of steps)
        for (const line of s.lines) this.#log(`instance ${s.delivery.instance}: ${line}`);
    }
    this.#settle(steps, member, t0);
  }

  /** Applies renewals, acknowledgements and crashes in simulated time order. */
  #settle(steps: readonly Step[], member: string, t0: number): void {
    type Op = { at: number; rank: number; order: number; step: Step; kind: 'renew' | 'end' };
    const ops: Op[] = [];
    const half = this.#schedule.lockDurationMs / 2;
    for (const step of steps) {
      const { delivery, verdict, order } = step;
      if (verdict.kind === 'nothing') continue;
      const early =
        verdict.kind === 'crash' && delivery.fault.kind === 'crash' && delivery.fault.point === 'before-put';
      const end = early ? t0 : t0 + delivery.latencyMs;
      if (this.#schedule.renewal && step.acquired.length > 0)
        for (let at = t0 + half; at < end; at += half) ops.push({ at, rank: 0, order, step, kind: 'renew' });
      ops.push({ at: end, rank: 1, order, step, kind: 'end' });
    }
    ops.sort((a, b) => a.at - b.at || a.rank - b.rank || a.order - b.order);
    let crashed = false;
    for (const op of ops) {
      const who = `instance ${op.step.delivery.instance}`;
      const v = op.step.verdict;
      if (crashed) {
        if (op.kind === 'end' && v.kind !== 'crash')
          this.#log(`${who}: its acknowledgement died in the crash`);
        continue;
      }
      this.#now = Math.max(this.#now, op.at);
      const offsets = op.step.acquired.map((a) => a.offset);
      if (op.kind === 'renew') {
        this.#ack(member, offsets, 'renew', `${who} renews`);
      } else if (v.kind === 'crash') {
        crashed = true;
        this.#crash();
      } else if (v.kind === 'ack-lost') {
        this.#log(`${who}: the acknowledgement is lost (share session reset)`);
      } else if (v.kind === 'accept') {
        const good = offsets.filter((o) => !v.rejected.has(o));
        const bad = offsets.filter((o) => v.rejected.has(o));
        if (good.length > 0 && this.#ack(member, good, 'accept', `${who} ACCEPTs`))
          this.accepted += good.length;
        if (bad.length > 0 && this.#ack(member, bad, 'reject', `${who} REJECTs errant`))
          for (const o of bad) if (v.byTask.has(o)) this.taskRejects.set(o, v.byTask.get(o)!);
      } else if (v.kind === 'release' || v.kind === 'reject') {
        const done = this.#ack(member, offsets, v.kind, `${who} ${v.kind.toUpperCase()}s (${v.why})`);
        if (done && v.kind === 'reject' && v.byTask !== undefined)
          for (const o of offsets) this.taskRejects.set(o, v.byTask);
      }
    }
    if (!crashed) this.#now = Math.max(this.#now, ...steps.map((s) => t0 + s.delivery.latencyMs));
  }

  async #put(step: Step): Promise<Verdict> {
    const { delivery, acquired, lines } = step;
    const { fault } = delivery;
    if (acquired.length === 0) return fault.kind === 'crash' ? { kind: 'crash' } : { kind: 'nothing' };
    const batch = acquired.map((a, i) => this.#sinkRecord(a, i));
    for (const a of acquired) {
      this.deliveries++;
      if (a.deliveryCount > 1) this.redeliveries++;
    }
    if (fault.kind === 'crash' && fault.point === 'before-put') return { kind: 'crash' };
    if (fault.kind === 'retriable' && fault.when === 'before-put')
      return { kind: 'release', why: 'injected RetriableError before put()' };
    if (fault.kind === 'fatal') return { kind: 'reject', why: 'injected fatal error before put()' };
    const withheld = new Set(fault.kind === 'errant' ? fault.indexes.filter((i) => i < batch.length) : []);
    if (withheld.size > 0)
      lines.push(
        `injected converter failure for ${[...withheld].map((i) => this.#label(acquired[i]!)).join(', ')}`,
      );
    const toPut = batch.filter((_, i) => !withheld.has(i));
    const rejected = new Set([...withheld].map((i) => acquired[i]!.offset));
    const byTask = new Map<number, string>();
    if (toPut.length > 0) {
      let live: Live;
      try {
        live = await this.#instance(delivery.instance, lines);
      } catch (error) {
        return this.#failure(error, 'start()', lines);
      }
      live.errant = new Map();
      live.batch = toPut;
      for (const r of toPut) this.putCounts.set(recordId(r), (this.putCounts.get(recordId(r)) ?? 0) + 1);
      let call = 'put()';
      try {
        await this.#call(live.task.put(toPut), call);
        call = 'preCommit()';
        await this.#call(live.task.preCommit(nextOffsets(batch)), call);
        lines.push(`put(${toPut.map(recordId).join(', ')}) returned`);
      } catch (error) {
        return this.#failure(error, call, lines);
      } finally {
        for (const [index, message] of live.errant) {
          const line = `task reported ${recordId(toPut.find((r) => r[BATCH_INDEX] === index)!)} errant: ${message}`;
          lines.push(line);
          this.#taskFailed(line);
          rejected.add(acquired[index]!.offset);
          byTask.set(acquired[index]!.offset, `the task reported it errant: ${message}`);
        }
        live.errant = undefined;
        live.batch = [];
      }
    }
    if (fault.kind === 'crash') return { kind: 'crash' };
    if (fault.kind === 'retriable')
      return { kind: 'release', why: 'put() returned, then an injected RetriableError: a lost reply' };
    if (fault.kind === 'ack-lost') return { kind: 'ack-lost' };
    return { kind: 'accept', rejected, byTask };
  }

  async #instance(slot: number, lines: string[]): Promise<Live> {
    const existing = this.#live.get(slot);
    if (existing !== undefined) return existing;
    const task = this.#factory();
    checkTask(task);
    const live: Live = { task, errant: undefined, batch: [] };
    task.initialize(this.#context(live));
    try {
      await this.#call(task.start(this.#run.props), 'start()');
      await this.#call(task.open(this.#partitions), 'open()');
    } catch (error) {
      // as the pool does: a task that failed to start is stopped and tried again on the next put
      await this.#call(task.stop(), 'stop()').catch(() => undefined);
      throw error;
    }
    lines.push('new task instance started');
    this.#live.set(slot, live);
    return live;
  }

  #context(live: Live): SinkTaskContext {
    return {
      configs: () => this.#run.props,
      assignment: () => this.#partitions,
      errantRecordReporter: () => (record, error) => {
        if (live.errant === undefined) return;
        const index =
          record[BATCH_INDEX] ??
          live.batch.find((r) => r.offset === record.offset && r.topic === record.topic)?.[BATCH_INDEX];
        if (index !== undefined)
          live.errant.set(index, error instanceof Error ? error.message : String(error));
      },
      timeout: () => undefined,
      abortSignal: () => NEVER_ABORTED,
    };
  }

  /** Classifies a failed task call as the pool does (src/pool/task-host.ts): RELEASE or REJECT. */
  #failure(error: unknown, call: string, lines: string[]): Verdict {
    if (error instanceof TaskHungError) lines.push(error.message);
    if (error instanceof TaskHungError || error instanceof KitUsageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const name = error instanceof Error ? error.name : typeof error;
    const transient = isRetriableError(error) ? undefined : transientCause(error);
    const line = isRetriableError(error)
      ? `${call} threw a RetriableError: ${message}`
      : transient !== undefined
        ? `${call} threw an error with code ${transient.code}, retried as the runtime retries network and disk failures: ${message}`
        : `${call} threw ${name} (not retriable): ${message}`;
    lines.push(line);
    this.#taskFailed(line);
    if (isRetriableError(error) || transient !== undefined)
      return { kind: 'release', why: `${call} threw ${transient ? transient.code : 'RetriableError'}` };
    return { kind: 'reject', why: `${call} threw`, byTask: `${call} threw ${name}: ${message}` };
  }

  #taskFailed(line: string): void {
    this.taskFailures++;
    this.lastTaskFailure = line;
  }

  async #drain(): Promise<void> {
    const budget = (this.model.endOffset + 2) * (this.#schedule.deliveryCountLimit + 2);
    for (let i = 0; i < budget; i++) {
      this.#expire(this.#now);
      if (this.model.count('available') === 0) {
        const next = this.model.nextDeadline();
        if (next === undefined) return;
        this.#now = next;
        continue;
      }
      await this.#round([
        { instance: 0, maxRecords: this.model.endOffset, latencyMs: 0, fault: { kind: 'none' } },
      ]);
    }
    throw new Error(
      `checkSinkTask: the drain did not finish in ${budget} rounds (a bug in sharesink/testing)`,
    );
  }

  #crash(): void {
    const lost = this.#live.size;
    for (const live of this.#live.values()) this.#lost.push(live.task);
    this.#live.clear();
    this.#generation++;
    this.#log(
      `PROCESS CRASH: ${lost} task instance(s) gone without stop(), acknowledgements not sent; ` +
        `${this.#member()} joins, the records come back when their locks expire`,
    );
  }

  #expire(now: number): void {
    for (const offset of this.model.expireLocks(now)) {
      const s = this.model.state(offset);
      const where = s.state === 'archived' ? 'archived (delivery limit)' : 'available again';
      this.#log(`lock of ${this.#id(offset)} expired: ${where}`);
    }
  }

  /** True when the broker took the acknowledgement. */
  #ack(member: string, offsets: readonly number[], type: ModelAckType, what: string): boolean {
    const result = this.model.acknowledge(member, offsets, type, this.#now);
    const ids = offsets.map((o) => this.#id(o)).join(', ');
    if (result.error === null) {
      if (type !== 'renew') this.#log(`${what} ${ids}`);
      return true;
    }
    this.#log(`${what} ${ids}: refused, ${result.error} (lock expired or not held)`);
    return false;
  }

  #member(): string {
    return `member-${this.#generation}`;
  }

  #sinkRecord(a: ModelAcquiredRecord, index: number): SinkRecord {
    const { topic, partition } = this.#run;
    const content = this.#schedule.records[a.offset]!;
    return toSinkRecord(
      content,
      { topic, partition, ...a },
      index,
      this.#options.mapValue,
      this.#options.mapKey,
    );
  }

  #call<T>(result: T | Promise<T>, what: string): Promise<T> {
    return settleWithin(result, this.#options.callTimeoutMs, what);
  }

  #failedStop(slot: number, error: unknown): void {
    if (error instanceof TaskHungError) throw error;
    this.#log(`instance ${slot}: ${error instanceof Error ? error.message : String(error)} while stopping`);
  }

  #id(offset: number): string {
    return recordId({ topic: this.#run.topic, partition: this.#run.partition, offset });
  }

  #label(a: ModelAcquiredRecord): string {
    return `${this.#id(a.offset)} (delivery ${a.deliveryCount})`;
  }

  #log(line: string): void {
    this.trace.push(`  t=${this.#now} ${line}`);
  }
}
