/**
 * `/metrics` exposition: sharesink's own formatter against prom-client 15 for the same samples
 * (issue 15: switch to prom-client, or keep ours if it is equivalent and cheaper).
 *
 * Both sides get what `collectMetrics` reads from a worker with C connectors of T tasks (the collection
 * is the same either way: everything is read at scrape time from the runtime's counters). Ours formats
 * the families; prom-client gets one Gauge / Counter per family, reset and set from the samples on each
 * scrape (the only way to hand it values counted elsewhere), then `registry.metrics()` writes the text.
 * Prints the median time per scrape of each, and whether the two texts carry the same sample lines.
 *
 *   npx tsx bench/metrics-exposition.ts [connectors=8] [tasks=8] [scrapes=300]
 */
import { TaskCounters } from '../src/actors/task-counters.js';
import { collectMetrics } from '../src/rest/metrics/metrics.js';
import { formatPrometheus, type MetricFamily } from '../src/rest/metrics/prometheus.js';
import type { RestConnector, RestWorker } from '../src/rest/worker-view.js';

/** The part of prom-client used here; imported by a computed name so that the root typecheck of a fresh
 * clone does not need bench/node_modules (`cd bench && npm ci` installs it). */
interface Series {
  set(labels: Record<string, string>, value: number): void;
  inc(labels: Record<string, string>, value: number): void;
}
interface PromClient {
  Registry: new () => { resetMetrics(): void; metrics(): Promise<string> };
  Gauge: new (o: object) => Series;
  Counter: new (o: object) => Series;
}
const promClient = 'prom-client';
const { Registry, Gauge, Counter } = (await import(promClient)) as PromClient;

const [connectors = 8, tasks = 8, scrapes = 300] = process.argv.slice(2).map(Number);

function worker(): RestWorker {
  const cs: RestConnector[] = Array.from({ length: connectors }, (_, ci) => {
    const counters = new TaskCounters();
    counters.onBatch(
      500,
      Array.from({ length: 500 }, (_, i) => ({ deliveryCount: 1 + (i % 3) })),
    );
    counters.onPut({ kind: 'ok', durationMs: 12 } as never, 500);
    return {
      config: { name: `c${ci}`, connectorClass: 'x', topics: ['t'], groupProtocol: 'share', raw: {} },
      state: 'RUNNING',
      error: undefined,
      taskConfigs: [],
      poolThreads: 4,
      lockCounters: { batchesWatched: 10, batchRenewalsGranted: 2 },
      oldestLockAgeMs: 1200,
      actors: { connector: { getSnapshot: () => ({ value: 'up', status: 'active' }) }, tasks: [] },
      taskStates: () => [],
      taskMetrics: () =>
        Array.from({ length: tasks }, (_, id) => ({
          id,
          state: 'RUNNING' as const,
          counters: counters.snapshot(),
          inFlight: 2,
          consumer: undefined,
          histograms: counters.histograms(),
        })),
      pause: async () => undefined,
      resume: async () => undefined,
      halt: async () => undefined,
      restart: () => ({ connector: false, tasks: [] }),
      restartTask: async () => undefined,
    };
  });
  return {
    config: { bootstrapServers: ['x:1'], clientId: 'b' },
    connectors: cs,
    connector: (n) => cs.find((c) => c.config.name === n),
    transitionCounter: { counts: () => [] },
    actorCensus: { counts: () => ({}) },
    isStopping: false,
  };
}

const w = worker();
const proc = {
  memory: process.memoryUsage(),
  uptimeSeconds: 1,
  eventLoop: { p50Ms: 1, p99Ms: 2, maxMs: 3, meanMs: 1 },
};
const lag = new Map(
  w.connectors.map((c) => [
    c.config.name,
    {
      errors: 0,
      reading: {
        at: 1,
        partitions: Array.from({ length: 12 }, (_, p) => ({ topic: 't', partition: p, offset: 5, lag: 7 })),
      },
    },
  ]),
);

const ours = () => formatPrometheus(collectMetrics(w, proc, lag));

const registry = new Registry();
const metrics = new Map<string, { series: Series; counter: boolean }>();
/** A family's samples as prom-client series; `_bucket` / `_sum` / `_count` become series of their own name. */
function feed(families: readonly MetricFamily[]): void {
  registry.resetMetrics();
  for (const f of families)
    for (const s of f.samples) {
      const name = f.name + (s.suffix ?? '');
      let m = metrics.get(name);
      if (m === undefined) {
        const labelNames = Object.keys(s.labels ?? {});
        const o = { name, help: f.help, labelNames, registers: [registry] };
        const counter = f.type === 'counter';
        m = { series: counter ? new Counter(o) : new Gauge(o), counter };
        metrics.set(name, m);
      }
      if (m.counter) m.series.inc({ ...s.labels }, s.value);
      else m.series.set({ ...s.labels }, s.value);
    }
}
const theirs = async () => {
  feed(collectMetrics(w, proc, lag));
  return registry.metrics();
};

const sampleLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .sort();

async function median(run: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < scrapes; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const a = ours();
const b = await theirs();
const linesA = sampleLines(a);
const linesB = sampleLines(b);
for (let i = 0; i < 30; i++) {
  ours();
  await theirs();
}
const collectOnly = await median(() => collectMetrics(w, proc, lag));
const oursMs = await median(ours);
const theirsMs = await median(theirs);
console.log(
  JSON.stringify(
    {
      connectors,
      tasks,
      scrapes,
      samples: linesA.length,
      bytes: { ours: a.length, promClient: b.length },
      sameSampleLines: JSON.stringify(linesA) === JSON.stringify(linesB),
      medianMsPerScrape: {
        collectOnly: +collectOnly.toFixed(3),
        ours: +oursMs.toFixed(3),
        promClient: +theirsMs.toFixed(3),
      },
    },
    null,
    2,
  ),
);
