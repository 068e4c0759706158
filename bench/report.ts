/** Renders a results object (bench/results.ts) as the Markdown table in bench/results/*.md. */
import type { ChildResult } from './child-protocol.js';
import { renderAvro } from './scenarios/avro-results.js';
import { renderIo } from './scenarios/io.js';
import { renderSteady } from './scenarios/steady-results.js';
import { rebalanceMarkdown } from './scenarios/rebalance-results.js';
import { formatProfile } from './profile.js';
import type { BenchResults } from './results.js';

const n = (v: number | null | undefined, digits = 0): string =>
  v === null || v === undefined || !Number.isFinite(v)
    ? '–'
    : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const x = (v: number | null | undefined): string =>
  v === null || v === undefined ? '–' : `${v.toFixed(2)}×`;

function via(r: ChildResult | undefined): string {
  return r && r.via === 'kafkajs-direct' ? ' †' : '';
}

export function renderMarkdown(r: BenchResults): string {
  const out: string[] = [];
  const v = r.versions as {
    node: string;
    kafka: string;
    java: string;
    sharesink: { gitSha: string; dirtySrc: string[]; runsAs?: string };
  };
  out.push(`# sharesink benchmark (${r.mode})`);
  out.push('');
  out.push(
    `${r.startedAt} · ${r.durationS} s · \`${r.command}\` · node ${v.node} · Kafka ${v.kafka} · ${v.java} · ` +
      `sharesink ${v.sharesink.gitSha.slice(0, 10)}${v.sharesink.dirtySrc.length > 0 ? ` (+${v.sharesink.dirtySrc.length} uncommitted src files)` : ''}${v.sharesink.runsAs === undefined ? ' (sources under tsx)' : ` (${v.sharesink.runsAs})`} · ` +
      `${String(r.machine.cpus)} CPUs (${String(r.machine.cpuModel)}) · load ${r.loadAverage.start.join('/')} → ${r.loadAverage.end.join('/')}`,
  );
  if ((r.notRecord ?? []).length > 0) {
    out.push('');
    out.push(
      `**A partial run, not the benchmark record** (bench/results/latest.* is written by full default runs only): ${(r.notRecord ?? []).join('; ')}.`,
    );
  }
  const busy = r.quiet.map((q) => q.busyCores).filter((b): b is number => b !== undefined);
  if (busy.length > 0) {
    const sorted = [...busy].sort((a, b) => a - b);
    const noisy = busy.filter((b) => b > 0.5).length;
    const waited = r.quiet.reduce((t, q) => t + q.waitedMs, 0);
    out.push('');
    out.push(
      `Machine CPU busy just before the ${busy.length} measurements (other processes included): median ${sorted[sorted.length >> 1]!.toFixed(2)} cores, ` +
        `max ${sorted[sorted.length - 1]!.toFixed(2)}; ${noisy} started above 0.5 cores; ${(waited / 1000).toFixed(0)} s spent waiting for quiet.`,
    );
  }
  out.push('');
  out.push('## Ratios (same run)');
  out.push('');
  out.push('| ratio | value |');
  out.push('|---|---|');
  for (const [k, val] of Object.entries(r.ratios))
    out.push(`| ${k} | ${val === null ? '–' : val.toFixed(3)} |`);
  out.push('');
  out.push('| target | value | met |');
  out.push('|---|---|---|');
  for (const [k, t] of Object.entries(r.targets))
    out.push(
      `| ${k} | ${t.value === null ? '–' : t.value.toFixed(3)} (goal ${t.target}) | ${t.met === null ? '–' : t.met ? 'yes' : 'no'} |`,
    );

  const s = r.scenarios;
  if (s.ceiling.length > 0 || s.noop.length > 0) {
    out.push('');
    out.push('## 1–2. Draining a pre-filled topic, NoopSink (records/s)');
    out.push('');
    out.push(
      'Window: Java tools from subscribe to the last record polled; sharesink from `Worker.start()` to the last record put. ' +
        '“steady” (in brackets) excludes the start-up and group join: sharesink from the first batch put to the last record put; ShareConsumerPerformance from the end of its first 250 ms reporting interval with a record to the last record (its detailed stats). ' +
        '“first record” is the time from start to that point. A drain ends at the last record put (the Java tools: last record polled); the final acknowledgements come after (see ackTailMs in the JSON).',
    );
    out.push('');
    out.push(
      '| topic | consumers | Java ConsumerPerformance | sharesink classic | Java ShareConsumerPerformance (steady) | sharesink share (steady) | share ÷ Java share (steady) | first record: Java share / sharesink share | classic ÷ Java classic |',
    );
    out.push('|---|---|---|---|---|---|---|---|---|');
    const topics = [...new Map([...s.ceiling, ...s.noop].map((t) => [t.topic, t])).values()];
    for (const t of topics) {
      const counts = [...new Set([1, t.partitions])];
      for (const c of counts) {
        const jc =
          c === 1
            ? s.ceiling.find((e) => e.topic === t.topic && e.result.tool === 'ConsumerPerformance')
            : undefined;
        const js = s.ceiling.find(
          (e) =>
            e.topic === t.topic && e.result.tool === 'ShareConsumerPerformance' && e.result.consumers === c,
        );
        const ss = s.noop.find((e) => e.topic === t.topic && e.mode === 'share' && e.tasks === c);
        const sc = s.noop.find((e) => e.topic === t.topic && e.mode === 'classic' && e.tasks === c);
        const shareRatio = ss && js ? ss.result.recordsPerSec / js.result.recordsPerSec : null;
        const steadyRatio =
          ss?.result.steadyRecordsPerSec && js?.result.steadyRecordsPerSec
            ? ss.result.steadyRecordsPerSec / js.result.steadyRecordsPerSec
            : null;
        const classicRatio = sc && jc ? sc.result.recordsPerSec / jc.result.recordsPerSec : null;
        const ms = (v: number | undefined) => (v === undefined ? '–' : `${n(v)} ms`);
        out.push(
          `| ${t.recordSize} B × ${t.partitions}p | ${c} | ${jc ? n(jc.result.recordsPerSec) : c === 1 ? '–' : 'n/a'} | ` +
            `${sc ? n(sc.result.recordsPerSec) + via(sc.result) : '–'} | ` +
            `${js ? `${n(js.result.recordsPerSec)} (${n(js.result.steadyRecordsPerSec)})` : '–'} | ` +
            `${ss ? `${n(ss.result.recordsPerSec)} (${n(ss.result.steadyRecordsPerSec)})` : '–'} | ` +
            `${x(shareRatio)} (${x(steadyRatio)}) | ${ms(js?.result.firstRecordMs)} / ${ms(ss?.result.firstRecordMs)} | ${x(classicRatio)} |`,
        );
      }
    }
    const kip848 = s.noop.filter((e) => e.mode === 'consumer');
    if (kip848.length > 0) {
      out.push(
        '',
        "`group.protocol=consumer` (KIP-848, sharesink's own member), 1 task, against ConsumerPerformance:",
        '',
      );
      out.push(
        '| topic | consumer protocol rec/s | ConsumerPerformance rec/s | ratio |',
        '|---|---|---|---|',
      );
      for (const e of kip848) {
        const jc = s.ceiling.find((c) => c.topic === e.topic && c.result.tool === 'ConsumerPerformance');
        const r = jc ? e.result.recordsPerSec / jc.result.recordsPerSec : null;
        out.push(
          `| ${e.recordSize} B × ${e.partitions}p | ${n(e.result.recordsPerSec)} | ${jc ? n(jc.result.recordsPerSec) : '–'} | ${x(r)} |`,
        );
      }
    }
  }

  if (s.latency.length > 0) {
    out.push('');
    out.push('## 3. Sinks with latency: scaling with tasks (records/s over the window)');
    out.push('');
    out.push(
      'One put (or Java poll result) at a time per task, pool threads = tasks; `java-share` = KafkaShareConsumer threads sleeping the same latency per poll; ' +
        '`connect` = Kafka Connect standalone (classic consumer group, one consumer per task) running bench/java/SleepSinkConnector, which sleeps the same latency per put.',
    );
    out.push('');
    out.push(
      '| sink latency | partitions | mode | tasks | records/s | ÷ (multiplier × 1× rate) | records/put | CPU cores |',
    );
    out.push('|---|---|---|---|---|---|---|---|');
    for (const row of s.latency) {
      const one = s.latency.find(
        (e) =>
          e.sinkMs === row.sinkMs &&
          e.partitions === row.partitions &&
          e.mode === row.mode &&
          e.multiplier === 1,
      );
      const eff = one ? row.recordsPerSec / (row.multiplier * one.recordsPerSec) : null;
      out.push(
        `| ${row.sinkMs} ms | ${row.partitions} | ${row.mode}${row.via === 'kafkajs-direct' ? ' †' : ''} | ${row.tasks} (${row.multiplier}×) | ${n(row.recordsPerSec)}${row.ranDry ? ' (ran dry)' : ''} | ` +
          `${eff === null ? '–' : eff.toFixed(2)} | ${n(row.avgRecordsPerPut, 1)} | ${n(row.cpuCores, 2)} |`,
      );
    }
    const anchors = s.latency.filter((e) => e.mode === 'connect');
    if (anchors.length > 0) {
      out.push('');
      out.push(
        'Against the classic anchor, Kafka Connect standalone (same latency, put size and task count; Connect, like sharesink classic, uses at most one task per partition). ' +
          "Connect's window starts once its consumer group has settled (settle = first put → window); “from first put” is its rate over the other rows' exact window:",
      );
      out.push('');
      out.push(
        '| sink latency | partitions | tasks | Kafka Connect | from first put (settle s) | sharesink classic | classic ÷ Connect | sharesink share | share ÷ Connect |',
      );
      out.push('|---|---|---|---|---|---|---|---|---|');
      for (const c of anchors) {
        const same = (mode: string) =>
          s.latency.find(
            (e) =>
              e.sinkMs === c.sinkMs &&
              e.partitions === c.partitions &&
              e.multiplier === c.multiplier &&
              e.mode === mode,
          );
        const classic = same('classic');
        const share = same('share');
        const over = (e: typeof c | undefined) =>
          e && c.recordsPerSec > 0 ? x(e.recordsPerSec / c.recordsPerSec) : '–';
        const d = 'settleMs' in c.detail ? c.detail : undefined;
        const early = d
          ? `${n(d.recordsPerSecFromFirstPut)} (${n(d.settleMs / 1000, 1)}${d.settled ? '' : ', unsettled'})`
          : '–';
        out.push(
          `| ${c.sinkMs} ms | ${c.partitions} | ${c.tasks} (${c.multiplier}×) | ${n(c.recordsPerSec)} | ${early} | ${n(classic?.recordsPerSec)} | ${over(classic)} | ` +
            `${n(share?.recordsPerSec)} | ${over(share)} |`,
        );
      }
    }
  }

  if (s.postgres) {
    const p = s.postgres;
    out.push('');
    out.push('## 4. PostgreSQL: PostgresSink vs a bare pg loop (same rows, same batch size)');
    out.push('');
    out.push(
      'Ratios use the steady rate (from the first batch written; the bare loop has no start-up either).',
    );
    out.push('');
    out.push('| | rows/s | batch | CPU µs/row (process) |');
    out.push('|---|---|---|---|');
    for (const [what, run] of [
      ['default pool.threads (one connection each)', p.sharesink],
      ['pool.threads=1 (one connection)', p.sharesinkOneThread],
    ] as const) {
      if (run)
        out.push(
          `| sharesink share, 1 task, PostgresSink (insert), ${what} | ${n(run.recordsPerSec)} (steady ${n(run.steadyRecordsPerSec)}) | ${n(run.avgRecordsPerPut, 1)} | ${n(run.cpuUsPerRecord, 1)} |`,
        );
    }
    if (p.bare)
      out.push(
        `| bare pg loop, 1 connection | ${n(p.bare.recordsPerSec)} | ${p.batchSize ?? '–'} | ${n(p.bare.cpuUsPerRecord, 1)} |`,
      );
    if (p.rowsInTable !== undefined) out.push(`\nRows in the sink's table afterwards: ${n(p.rowsInTable)}.`);
  }

  for (const [name, j] of Object.entries(s.jdbc ?? {})) {
    out.push('');
    out.push(
      `## 10. ${name}: the JDBC sink at its defaults vs a bare driver loop (same rows, same batch size)`,
    );
    out.push('');
    out.push('| | rows/s | batch | CPU µs/row (process) | samples |');
    out.push('|---|---|---|---|---|');
    if (j.sharesink)
      out.push(
        `| sharesink share, 1 task, io.confluent.connect.jdbc.JdbcSinkConnector (defaults) | ${n(j.sharesink.recordsPerSec)} (steady ${n(j.sharesink.steadyRecordsPerSec)}) | ${n(j.sharesink.avgRecordsPerPut, 1)} | ${n(j.sharesink.cpuUsPerRecord, 1)} | ${j.samples.sharesink.join(', ')} |`,
      );
    if (j.bare)
      out.push(
        `| bare ${name === 'postgresql' ? 'pg' : 'mysql2'} loop, 1 connection | ${n(j.bare.recordsPerSec)} | ${j.batchSize ?? '–'} | ${n(j.bare.cpuUsPerRecord, 1)} | ${j.samples.bare.join(', ')} |`,
      );
  }

  if (s.runtimeCost.length > 0) {
    out.push('');
    out.push('## 5. Runtime cost with NoopSink, max.poll.records 500 (whole process: main + pool threads)');
    out.push('');
    out.push(
      '| topic | mode | records/put | CPU µs/record | CPU cores | steady records/s | RSS after start | peak RSS |',
    );
    out.push('|---|---|---|---|---|---|---|---|');
    for (const c of s.runtimeCost) {
      out.push(
        `| ${String(c.topic).replace(/^bench-[^-]+-/, '')} | ${c.mode}${c.via === 'kafkajs-direct' ? ' †' : ''} | ${n(c.avgRecordsPerPut as number, 1)} | ${n(c.cpuUsPerRecord as number, 2)} | ` +
          `${n(c.cpuCores as number, 2)} | ${n(c.steadyRecordsPerSec as number)} | ${n(c.rssAfterStartMb as number)} MB | ${n(c.peakRssMb as number)} MB |`,
      );
    }
  }

  if (s.e2e.length > 0) {
    out.push('');
    out.push('## 6. End-to-end latency at a fixed rate (CreateTime → put; Java: → poll() return)');
    out.push('');
    out.push(
      '| rate | mode | via | target rate | produced rate | samples | p50 | p90 | p99 (all repeats) | max | producer p50 / p99 | process CPU cores | process peak RSS |',
    );
    out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const e of s.e2e) {
      out.push(
        `| ${Math.round(e.fraction * 100)}% of max | ${e.mode} | ${e.via} | ${n(e.targetRecordsPerSec)}/s | ${n(e.producedRecordsPerSec)}/s | ${n(e.samples)} | ${e.p50Ms} ms | ${e.p90Ms} ms | ` +
          `${e.p99Ms} ms (${e.p99Samples.join(', ')}) | ${e.maxMs} ms | ${e.producerP50Ms ?? '–'} / ${e.producerP99Ms ?? '–'} ms | ` +
          `${n(e.processCpuCores, 2)} | ${n(e.processPeakRssMb)} MB |`,
      );
    }
    out.push('');
    out.push(
      `Maximum rate basis: ${s.e2e[0]!.maxRateBasis}. The run with the lowest p99 of the repeats is shown. The producer's own latency (send to ack) ` +
        'shows when the broker itself was slow: then every consumer sees it.',
    );
  }

  if (s.io) out.push(...renderIo(s.io));
  if (s.steady) out.push(...renderSteady(s.steady));
  if (s.avro) out.push(...renderAvro(s.avro));
  out.push(...rebalanceMarkdown(s.rebalance));

  if (r.profile) {
    out.push('');
    out.push(`## Profile (${r.profile.run ?? ''}, ${n(r.profile.recordsPerSec)} records/s under --cpu-prof)`);
    out.push('');
    out.push('```');
    out.push(formatProfile(r.profile, 2));
    out.push('```');
  }

  const kafkajs = [...s.noop.map((e) => e.result.via), ...s.latency.map((e) => e.via)].includes(
    'kafkajs-direct',
  );
  if (kafkajs || r.notes.length > 0 || r.errors.length > 0) {
    out.push('');
    out.push('## Notes');
    out.push('');
    if (kafkajs)
      out.push(
        '- † classic mode measured on a bare kafkajs consumer (no pool threads, no conversion): the classic task runner was not wired into the runtime when this ran.',
      );
    for (const note of r.notes) out.push(`- ${note}`);
    for (const e of r.errors) out.push(`- ERROR in ${e.step}: ${e.message.split('\n')[0]}`);
  }
  out.push('');
  return out.join('\n');
}
