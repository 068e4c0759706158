/**
 * `npm run bench` (short, < 10 min on 2 cores) and `npm run bench -- --full`: sharesink and the Java
 * reference tools against the same topics on the same broker, in one invocation. Writes
 * bench/results/<timestamp>.{json,md}, and bench/results/latest.{json,md} when it is a full default
 * run (bench/record.ts). See bench/README.md.
 *
 * Options: --full, --only=1,2,3,4,5,6,7,8,9,10,11 (scenario numbers; 7, 8 and 10 run with --only or --full; 9 needs the schema registry, started when absent; 11 is the rebalance scenario), --brokers=127.0.0.1:29092 (loopback only; a
 * broker is started there when none answers), --keep-broker, --profile (adds a --cpu-prof run of
 * share mode and summarizes it), --pg=postgres://…, --no-save (print only).
 *
 * This file reads the options, runs the scenarios (bench/scenarios/) in order and writes the results
 * (bench/results.ts, bench/report.ts); the plans are in bench/plan.ts.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { deleteTopics, ensureBroker, otherKafkaBrokers, round, say, stopBroker } from './common.js';
import { createContext, runChild } from './context.js';
import { compileJavaPeer } from './java-tools.js';
import { FULL, scalePlan, SHORT } from './plan.js';
import { renderMarkdown } from './report.js';
import { sourcesUnderTsx } from './built-child.js';
import { defaultScenarios, notTheRecordBecause } from './record.js';
import { computeRatios, newResults, saveResults } from './results.js';
import { fillDrainTopics, runDrains } from './scenarios/drain.js';
import { runEndToEnd } from './scenarios/e2e.js';
import { runIoScenario } from './scenarios/io.js';
import { runLatency } from './scenarios/latency.js';
import { runAvro } from './scenarios/avro.js';
import { runJdbc } from './scenarios/jdbc.js';
import { runPostgres } from './scenarios/postgres.js';
import { runProfile } from './scenarios/profile.js';
import { runRebalance } from './scenarios/rebalance.js';
import { runSteady, warmBroker } from './scenarios/steady.js';
import { runtimeCost } from './scenarios/runtime-cost.js';

async function main(): Promise<void> {
  const { values: opts } = parseArgs({
    options: {
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      brokers: { type: 'string', default: process.env.SHARESINK_BENCH_BROKERS ?? '127.0.0.1:29092' },
      'keep-broker': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      pg: {
        type: 'string',
        default: process.env.SHARESINK_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      },
      'no-save': { type: 'boolean', default: false },
      /** Scenario 6: the maximum rate to take 50% of, instead of the one measured in scenario 2. */
      'e2e-max-rate': { type: 'string' },
      /** Scenario 8: the maximum rate its fractions are taken of (default: STEADY_MAX_RATE). */
      'steady-max-rate': { type: 'string' },
      /** Multiplies record counts and windows (e.g. 0.1 for a smoke test of the harness itself). */
      scale: { type: 'string', default: '1' },
    },
    allowPositionals: false,
  });
  const plan = scalePlan(opts.full ? FULL : SHORT, Number(opts.scale));
  const only = new Set(opts.only?.split(',').map((s) => Number(s.trim())) ?? defaultScenarios(opts.full));
  const wants = (n: number) => only.has(n);
  const started = new Date();
  const brokers = opts.brokers;
  const pgUrl = opts.pg;
  const pgHost = new URL(pgUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1'].includes(pgHost)) throw new Error('PostgreSQL must be on loopback');

  const results = newResults({ plan, started, scale: Number(opts.scale), brokers });
  const ctx = createContext({ plan, results, brokers, pgUrl, wants });
  const { step, measured, topicName, createdTopics, runId } = ctx;

  const broker = await ensureBroker(brokers);
  const others = otherKafkaBrokers(broker.port);
  if (others.length > 0) {
    const note = `other Kafka brokers were running during this run (${others.join(', ')}): every side is slower; stop them (bash scripts/kafka/stop.sh with their KAFKA_PORT) for comparable numbers`;
    say(`[bench] warning: ${note}`);
    results.notes.push(note);
  }
  if (wants(3) || wants(6) || wants(7) || wants(8)) {
    ctx.javaPeer = await step('compile the Java share-consumer peer', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-java-'));
      await compileJavaPeer(dir);
      return dir;
    });
  }
  try {
    await warmBroker(ctx);
    const drainTopics = await fillDrainTopics(ctx, opts.profile); // scenarios 1, 2, 5 and --profile
    await runDrains(ctx, drainTopics); // scenarios 1 + 2
    runtimeCost(ctx); // scenario 5
    await runLatency(ctx); // scenario 3
    await runPostgres(ctx); // scenario 4
    await runJdbc(ctx); // scenario 10
    await runEndToEnd(ctx, opts['e2e-max-rate']); // scenario 6
    if (wants(7)) {
      const io = { brokers, pgUrl, full: opts.full, scale: Number(opts.scale), topicName, createdTopics };
      const javaPeer = ctx.javaPeer;
      results.scenarios.io = await step('I/O-bound sinks with default settings', () =>
        runIoScenario({ ...io, measured, step, runChild: (spec) => runChild(spec), javaPeer, runId }),
      );
    }
    await runSteady(ctx, opts['steady-max-rate']); // scenario 8
    await runAvro(ctx); // scenario 9
    await runRebalance(ctx); // scenario 11
    if (opts.profile) await runProfile(ctx, drainTopics);
  } finally {
    await step('delete topics', () => deleteTopics(brokers, createdTopics));
    if (!opts['keep-broker']) stopBroker(broker);
  }

  computeRatios(results, plan);
  results.notRecord = notTheRecordBecause(
    {
      full: opts.full,
      only: opts.only,
      scale: Number(opts.scale),
      e2eMaxRate: opts['e2e-max-rate'],
      steadyMaxRate: opts['steady-max-rate'],
      sourcesUnderTsx: sourcesUnderTsx(),
    },
    results.errors,
  );
  results.loadAverage.end = os.loadavg().map((v) => round(v, 2));
  results.finishedAt = new Date().toISOString();
  results.durationS = round((Date.now() - started.getTime()) / 1000, 1);
  const md = renderMarkdown(results);
  if (!opts['no-save']) saveResults(results, md, started);
  say('');
  say(md);
  process.exit(results.errors.length > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
