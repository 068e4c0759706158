/**
 * `checkSinkTask`: property-based check of a connector's SinkTask under share-group delivery. Each run
 * drives fresh task instances through a generated schedule (src/testing/sink-run.ts) with a
 * SharePartitionModel as the oracle, then compares what the connector says it wrote with what the
 * model says happened. fast-check shrinks a failing schedule to a minimal one, which is reported with
 * what happened step by step.
 */
import fc from 'fast-check';
import type { SinkTask } from '../connect/sink-task.js';
import {
  ALL_FAULT_KINDS,
  sinkScheduleArb,
  type Fault,
  type ScheduleOptions,
  type SinkSchedule,
} from './arbitraries.js';
import { adviceFor } from './advice.js';
import { simplify } from './simplify.js';
import { SinkRun, type RunContext } from './sink-run.js';
import { recordId, type RecordRef } from './task-calls.js';
import { checkArguments, checkWritten, KitUsageError } from './usage.js';

export interface CheckSinkTaskOptions {
  /**
   * What the connector wrote in this run: record id (`topic/partition/offset`, see `recordId`) → how
   * many times it is written. Called after the run's surviving instances were stopped.
   */
  observe(run: RunContext): Promise<ReadonlyMap<string, number>> | ReadonlyMap<string, number>;
  /** Task properties, or a function of the run (to give each run its own table, file or key space). */
  props?: Readonly<Record<string, string>> | ((run: Omit<RunContext, 'props'>) => Record<string, string>);
  /** True when the connector claims a redelivered record is written once: then a second write fails the check. */
  idempotent?: boolean;
  /**
   * True when the task may REJECT generated records itself (throw a non-retriable error, report them
   * errant). By default that fails the check: a rejected record is never written.
   */
  allowRejects?: boolean;
  /** Default `sharesink-check`. A function gives each run its own topic. */
  topic?: string | ((index: number) => string);
  partition?: number;
  /** Called after each run's observe(), e.g. to drop the run's table. */
  cleanup?(run: RunContext): unknown;
  /** Shapes the value handed to put(); default: the generated value as it is. */
  mapValue?: (value: unknown, record: RecordRef) => unknown;
  /**
   * Shapes the key handed to put(); default: the generated key (short strings that repeat, or null).
   * For a sink that upserts by record key, give each record its own: `(_key, record) => record.id`,
   * and have observe() read the keys back as record ids.
   */
  mapKey?: (key: string | null, record: RecordRef) => unknown;
  /** Shapes of the generated schedules (record contents, faults, instances, rounds). */
  schedule?: ScheduleOptions;
  /** Replaces the schedule arbitrary altogether. */
  scheduleArb?: fc.Arbitrary<SinkSchedule>;
  /** fast-check runs. Default 50. */
  numRuns?: number;
  /** Replay fast-check's counter-example: the seed and path printed with a failure. */
  seed?: number;
  path?: string;
  /** Schedules to run before the generated ones, e.g. a reported `error.schedule` to replay it exactly. */
  examples?: readonly SinkSchedule[];
  /**
   * After fast-check's shrinking, try each delivery alone with each allowed fault, then remove and
   * plainen rounds, deliveries and records one at a time, while the check still fails (at most this many
   * extra runs). Default 200; 0 turns it off.
   */
  simplifyRuns?: number;
  /** Real time one task call (start, put, preCommit, stop…) may take. Default 10 s. */
  callTimeoutMs?: number;
}

export interface CheckSinkTaskReport {
  readonly runs: number;
  readonly seed: number;
  /** Records handed out by the model, and how many of those were redeliveries, over all runs. */
  readonly deliveries: number;
  readonly redeliveries: number;
  /** Records the broker took an ACCEPT for, over all runs. */
  readonly accepted: number;
}

/** A shrunk counter-example: the schedule, what went wrong, and what happened. */
export class SinkTaskCheckError extends Error {
  readonly schedule: SinkSchedule;
  readonly violations: readonly string[];
  readonly trace: readonly string[];
  readonly seed: number;
  readonly path: string | null;
  readonly numShrinks: number;

  constructor(details: {
    message: string;
    schedule: SinkSchedule;
    violations: readonly string[];
    trace: readonly string[];
    seed: number;
    path: string | null;
    numShrinks: number;
  }) {
    super(details.message);
    this.name = 'SinkTaskCheckError';
    this.schedule = details.schedule;
    this.violations = details.violations;
    this.trace = details.trace;
    this.seed = details.seed;
    this.path = details.path;
    this.numShrinks = details.numShrinks;
  }
}

interface Outcome {
  readonly violations: string[];
  readonly trace: readonly string[];
}

/**
 * Checks a SinkTask's delivery guarantees. Resolves with a summary, or rejects with a
 * {@link SinkTaskCheckError} carrying the shrunk schedule. Properties:
 * - no loss: every record the broker ended with as ACCEPTed is written at least once;
 * - no phantom: nothing is written that was never handed to put();
 * - with `idempotent: true`, no record is written more than once;
 * - unless `allowRejects: true`, the task itself REJECTs no record (a non-retriable error, errant reports).
 * It also fails, with a plain Error, when no delivery of any run ended ACCEPTed because the task kept
 * failing: such a check proves nothing. Misuse (no factory, no observe()) is a TypeError at once.
 */
export async function checkSinkTask(
  taskFactory: () => SinkTask,
  options: CheckSinkTaskOptions,
): Promise<CheckSinkTaskReport> {
  checkArguments(taskFactory, options);
  const arb = options.scheduleArb ?? sinkScheduleArb(options.schedule);
  const outcomes = new WeakMap<SinkSchedule, Outcome>();
  let index = 0;
  let deliveries = 0;
  let redeliveries = 0;
  let accepted = 0;
  let taskFailures = 0;
  let lastTaskFailure: string | undefined;
  // misuse found in a run ends the check: every later run (fast-check's shrinking) fails at once
  let usage: KitUsageError | undefined;
  const property = fc.asyncProperty(arb, async (schedule) => {
    if (usage !== undefined) throw usage;
    const outcome = await runOnce(taskFactory, schedule, index++, options, (run) => {
      deliveries += run.deliveries;
      redeliveries += run.redeliveries;
      accepted += run.accepted;
      taskFailures += run.taskFailures;
      lastTaskFailure = run.lastTaskFailure ?? lastTaskFailure;
    }).catch((error: unknown) => {
      if (error instanceof KitUsageError) usage = error;
      throw error;
    });
    outcomes.set(schedule, outcome);
    if (outcome.violations.length > 0) throw new Error(outcome.violations.join('\n'));
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns ?? 50,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.examples === undefined ? {} : { examples: options.examples.map((s): [SinkSchedule] => [s]) }),
  });
  if (usage !== undefined) throw usage;
  if (!details.failed) {
    if (accepted === 0 && taskFailures > 0)
      throw new Error(
        `checkSinkTask: no delivery ended ACCEPTed in ${details.numRuns} run(s) (${deliveries} record ` +
          'deliveries): the task failed every time, so nothing could be lost and the check proved nothing. ' +
          `Its last failure: ${lastTaskFailure}. Check its props (addresses, credentials) and that what it ` +
          'writes to is up: a put() without injected faults must succeed.',
      );
    return { runs: details.numRuns, seed: details.seed, deliveries, redeliveries, accepted };
  }
  const shrunk = details.counterexample?.[0];
  if (shrunk === undefined)
    throw details.errorInstance ?? new Error('checkSinkTask failed without a counter-example');
  const first = outcomes.get(shrunk) ?? (await runOnce(taskFactory, shrunk, index++, options, () => {}));
  const { schedule, outcome, steps } = await simplify(
    shrunk,
    first,
    async (candidate) => {
      const o = await runOnce(taskFactory, candidate, index++, options, () => {});
      return o.violations.length > 0 ? o : undefined;
    },
    // a schedule arbitrary of the caller's own may use any fault: keep to the kinds this one shows
    options.scheduleArb
      ? [...new Set(shrunk.rounds.flat().map((d) => d.fault.kind))]
      : (options.schedule?.faults ?? ALL_FAULT_KINDS),
    options.simplifyRuns ?? 200,
  );
  const violations =
    outcome.violations.length > 0
      ? outcome.violations
      : [String((details.errorInstance as Error)?.message ?? 'failed')];
  const advice = adviceFor(violations, {
    callTimeoutMs: options.callTimeoutMs ?? 10_000,
    sampleId: recordId({ topic: topicOf(options, 0), partition: options.partition ?? 0, offset: 0 }),
  });
  const message = [
    `checkSinkTask found a counter-example after ${details.numRuns} run(s); fast-check shrunk it ` +
      `${details.numShrinks} time(s), then ${steps} simplification(s).`,
    '',
    'What went wrong:',
    ...violations.map((v) => `  - ${v}`),
    '',
    ...(advice.length > 0 ? ['How to fix:', ...advice.map((a) => `  - ${a}`), ''] : []),
    'Schedule:',
    ...formatSchedule(schedule),
    '',
    'What happened:',
    ...outcome.trace,
    '',
    'Replay this schedule: checkSinkTask(factory, { ...options, examples: [error.schedule] })',
    `Replay the run that found it: { ...options, seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)} }`,
  ].join('\n');
  throw new SinkTaskCheckError({
    message,
    schedule,
    violations,
    trace: outcome.trace,
    seed: details.seed,
    path: details.counterexamplePath,
    numShrinks: details.numShrinks,
  });
}

async function runOnce(
  taskFactory: () => SinkTask,
  schedule: SinkSchedule,
  index: number,
  options: CheckSinkTaskOptions,
  tally: (run: SinkRun) => void,
): Promise<Outcome> {
  const topic = topicOf(options, index);
  const partition = options.partition ?? 0;
  const props =
    typeof options.props === 'function' ? options.props({ index, topic, partition }) : (options.props ?? {});
  const context: RunContext = { index, topic, partition, props };
  const run = new SinkRun(taskFactory, schedule, context, {
    mapValue: options.mapValue,
    mapKey: options.mapKey,
    callTimeoutMs: options.callTimeoutMs ?? 10_000,
  });
  try {
    try {
      await run.execute();
    } catch (error) {
      if (error instanceof KitUsageError) throw error;
      return {
        violations: [`the run stopped: ${(error as Error)?.message ?? String(error)}`],
        trace: run.trace,
      };
    }
    const problems = run.model.invariantViolations();
    if (problems.length > 0)
      throw new Error(`SharePartitionModel broke its invariants: ${problems.join('; ')}`);
    let written: ReadonlyMap<string, number>;
    try {
      written = await options.observe(context);
    } catch (error) {
      return {
        violations: [`observe() threw: ${(error as Error)?.message ?? String(error)}`],
        trace: run.trace,
      };
    }
    checkWritten(written);
    tally(run);
    return { violations: judge(run, context, written, options), trace: run.trace };
  } finally {
    await run.dispose();
    await options.cleanup?.(context);
  }
}

function topicOf(options: CheckSinkTaskOptions, index: number): string {
  return typeof options.topic === 'function' ? options.topic(index) : (options.topic ?? 'sharesink-check');
}

function judge(
  run: SinkRun,
  ctx: RunContext,
  written: ReadonlyMap<string, number>,
  options: CheckSinkTaskOptions,
): string[] {
  const idempotent = options.idempotent === true;
  const violations: string[] = [];
  const ids = new Set<string>();
  for (let offset = 0; offset < run.model.endOffset; offset++) {
    const id = recordId({ topic: ctx.topic, partition: ctx.partition, offset });
    ids.add(id);
    const s = run.model.state(offset);
    const times = written.get(id) ?? 0;
    const puts = run.putCounts.get(id) ?? 0;
    if (s.state === 'acknowledged' && times < 1)
      violations.push(
        `lost: ${id} was ACCEPTed (delivery ${s.deliveryCount}) but is not written (put() ${puts}×)`,
      );
    if (idempotent && times > 1)
      violations.push(
        `duplicate: ${id} is written ${times} times (put() ${puts}×) though idempotent is true`,
      );
    const rejectedBecause = run.taskRejects.get(offset);
    if (options.allowRejects !== true && rejectedBecause !== undefined && s.state === 'archived')
      violations.push(`rejected: ${id} was REJECTed because ${rejectedBecause}`);
  }
  for (const [id, times] of written) {
    if (times > 0 && !run.putCounts.has(id))
      violations.push(
        `phantom: ${id} is written ${times}× but was never passed to put()${ids.has(id) ? '' : ' (not a record of this run)'}`,
      );
  }
  return violations;
}

export function formatSchedule(s: SinkSchedule): string[] {
  const lines = [
    `  lock ${s.lockDurationMs} ms, delivery limit ${s.deliveryCountLimit}, lock renewal ${s.renewal ? 'on' : 'off'}`,
    `  ${s.records.length} record(s):`,
    ...s.records.map((r, offset) => `    offset ${offset}: ${truncate(JSON.stringify(r))}`),
  ];
  if (s.rounds.length === 0) lines.push('  no faulty rounds: only the drain');
  s.rounds.forEach((round, i) => {
    lines.push(`  round ${i + 1}:`);
    for (const d of round)
      lines.push(
        `    instance ${d.instance} takes up to ${d.maxRecords}, put latency ${d.latencyMs} ms, fault: ${describeFault(d.fault)}`,
      );
  });
  return lines;
}

export function describeFault(f: Fault): string {
  switch (f.kind) {
    case 'none':
      return 'none';
    case 'retriable':
      return f.when === 'before-put'
        ? 'RetriableError before put()'
        : 'RetriableError after put() wrote (lost reply)';
    case 'fatal':
      return 'fatal error before put()';
    case 'errant':
      return `converter failure at batch index ${f.indexes.join(', ')}`;
    case 'crash':
      return f.point === 'before-put'
        ? 'process crash before put()'
        : 'process crash after put(), before the ack';
    case 'ack-lost':
      return 'acknowledgement lost';
  }
}

function truncate(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
