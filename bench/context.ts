/**
 * What every scenario of a bench run shares: the plan, the results being filled, the broker, the
 * topics to delete at the end, and the two ways to run a step (`step` catches and records a failure;
 * `measured` also waits for a quiet machine first). `runChild` runs one measurement process
 * (bench/child.ts).
 */
import path from 'node:path';
import { builtChild, needsTypescriptChild, sourcesUnderTsx } from './built-child.js';
import type { ChildResult, ChildSpec } from './child-protocol.js';
import { RESULT_PREFIX } from './child-protocol.js';
import { BENCH_DIR, round, runProcess, say, tail, waitForQuiet } from './common.js';
import { QUIET_CORES, type Plan } from './plan.js';
import type { BenchResults } from './results.js';

export type Step = <T>(name: string, fn: () => Promise<T>) => Promise<T | undefined>;

export interface BenchContext {
  readonly plan: Plan;
  readonly results: BenchResults;
  readonly brokers: string;
  readonly pgUrl: string;
  readonly runId: string;
  /** Scenario numbers to run (--only). */
  readonly wants: (n: number) => boolean;
  /** Topics created in this run, deleted at the end. */
  readonly createdTopics: string[];
  readonly topicName: (what: string) => string;
  /** Runs a step: logs its time, records a failure in results.errors and returns undefined. */
  readonly step: Step;
  /** A step that measures: first waits (within the run's budget) for the machine to be quiet. */
  readonly measured: Step;
  /** Compiled bench/java/ShareLatencyBench (scenarios 3, 6, 7), when it was compiled. */
  javaPeer: string | undefined;
}

export function createContext(o: {
  plan: Plan;
  results: BenchResults;
  brokers: string;
  pgUrl: string;
  wants: (n: number) => boolean;
}): BenchContext {
  const { plan, results } = o;
  const runId = Date.now().toString(36);
  const step: Step = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t = performance.now();
    say(`[bench] ${name} …`);
    try {
      const v = await fn();
      say(`[bench] ${name}: ${round((performance.now() - t) / 1000, 1)} s`);
      return v;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      say(`[bench] ${name} FAILED: ${message.split('\n')[0]}`);
      results.errors.push({ step: name, message: message.slice(0, 2000) });
      return undefined;
    }
  };
  let quietLeftMs = plan.quietBudgetMs;
  const measured: Step = <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> =>
    step(name, async () => {
      const q = await waitForQuiet(Math.min(15_000, quietLeftMs), QUIET_CORES);
      quietLeftMs = Math.max(0, quietLeftMs - q.waitedMs);
      results.quiet.push({ step: name, ...q });
      return fn();
    });
  return {
    plan,
    results,
    brokers: o.brokers,
    pgUrl: o.pgUrl,
    runId,
    wants: o.wants,
    createdTopics: [],
    topicName: (what) => `bench-${runId}-${what}`,
    step,
    measured,
    javaPeer: undefined,
  };
}

/**
 * Runs bench/child.ts with `spec` and returns its result line: built, on plain node (bench/built-child.ts),
 * unless the run's connector is a TypeScript module or `options.typescript` asks for the sources under
 * tsx. `benchDir`: another checkout's bench/, to measure that checkout (bench/drain-ab.ts).
 */
export async function runChild(
  spec: ChildSpec,
  nodeFlags: readonly string[] = [],
  benchDir = BENCH_DIR,
  options: { typescript?: boolean } = {},
): Promise<ChildResult> {
  const connectorClass = 'connectorClass' in spec ? spec.connectorClass : undefined;
  const typescript = options.typescript ?? (sourcesUnderTsx() || needsTypescriptChild(connectorClass));
  const entry = typescript
    ? ['--import', 'tsx', path.join(benchDir, 'child.ts')]
    : [await builtChild(benchDir)];
  const r = await runProcess(process.execPath, [...nodeFlags, ...entry, JSON.stringify(spec)], {
    timeoutMs: spec.timeoutMs + 60_000,
    cwd: path.dirname(benchDir),
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (r.code !== 0 || !line) {
    const why = r.timedOut ? 'timed out' : `exited ${r.code}`;
    throw new Error(`${spec.label} ${why}:\n${tail(r.stderr, 15)}`);
  }
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ChildResult;
}
