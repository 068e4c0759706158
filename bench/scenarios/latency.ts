/**
 * Scenario 3: a sink with 5 ms and 20 ms of latency per put, scaling the task count (1×, 2×, 4×, 8×
 * the partitions): sharesink share and classic, the Java share-consumer peer (bench/java) and Kafka
 * Connect standalone with SleepSinkConnector (bench/connect-standalone.ts) as the classic anchor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTopic } from '../common.js';
import { compileConnectPlugin, connectLatencyRun } from '../connect-standalone.js';
import { runChild, type BenchContext } from '../context.js';
import { producerPerformance, shareLatencyBench } from '../java-tools.js';
import { FILL_PROPS } from '../plan.js';
import type { LatencyRow } from '../results.js';

export async function runLatency(ctx: BenchContext): Promise<void> {
  const { plan, results, brokers, step, measured, topicName, createdTopics, wants, javaPeer } = ctx;
  if (wants(3)) {
    const L = plan.latency;
    // the classic anchor: Kafka Connect standalone running our SleepSinkConnector (bench/java)
    const connectPlugin = await step('resolve Kafka Connect and compile SleepSinkConnector', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-connect-plugin-'));
      await compileConnectPlugin(dir);
      return dir;
    });
    for (const partitions of L.partitions) {
      const topic = topicName(`lat-p${partitions}`);
      const filled = await step(
        `fill ${topic} (${L.topicRecords} × 100 B, batch.size ${L.producerBatchBytes})`,
        async () => {
          await createTopic(brokers, topic, partitions);
          createdTopics.push(topic);
          return producerPerformance({
            brokers,
            topic,
            records: L.topicRecords,
            recordSize: 100,
            props: { ...FILL_PROPS, 'batch.size': String(L.producerBatchBytes) },
          });
        },
      );
      if (!filled) continue;
      results.fills.push({ topic, recordSize: 100, partitions, ...filled, records: L.topicRecords });
      const maxMult = Math.max(...L.multipliers);
      for (const sinkMs of L.sinkMs) {
        const runs: Array<{ mode: LatencyRow['mode']; multiplier: number }> = [
          ...L.multipliers.map((multiplier) => ({ mode: 'share' as const, multiplier })),
          { mode: 'classic', multiplier: 1 },
          { mode: 'classic', multiplier: maxMult },
          ...(javaPeer
            ? L.multipliers.map((multiplier) => ({ mode: 'java-share' as const, multiplier }))
            : []),
          ...(connectPlugin
            ? [1, maxMult].map((multiplier) => ({ mode: 'connect' as const, multiplier }))
            : []),
        ];
        for (const { mode, multiplier } of runs) {
          const tasks = multiplier * partitions;
          const label = `lat${sinkMs}-${mode}-x${multiplier}-p${partitions}`;
          const row = await measured(`${mode} latency ${sinkMs} ms tasks=${tasks} ${topic}`, async () => {
            if (mode === 'java-share') {
              const j = await shareLatencyBench({
                classesDir: javaPeer!,
                brokers,
                topic,
                group: `${label}-${Date.now().toString(36)}`,
                threads: tasks,
                latencyMs: sinkMs,
                maxPollRecords: L.maxPollRecords,
                warmupMs: L.warmupMs,
                windowMs: L.windowMs,
              });
              return {
                via: 'Java KafkaShareConsumer threads (bench/java/ShareLatencyBench.java)',
                recordsPerSec: j.recordsPerSec,
                avgRecordsPerPut: j.polls > 0 ? j.records / j.polls : undefined,
                cpuCores: undefined,
                ranDry: false,
                detail: j,
              };
            }
            if (mode === 'connect') {
              const c = await connectLatencyRun({
                classesDir: connectPlugin!,
                brokers,
                topic,
                name: `${label}-${Date.now().toString(36)}`,
                tasks,
                partitions,
                latencyMs: sinkMs,
                maxPollRecords: L.maxPollRecords,
                maxPartitionFetchBytes: L.producerBatchBytes,
                topicRecords: L.topicRecords,
                warmupMs: L.warmupMs,
                windowMs: L.windowMs,
              });
              return {
                via: 'Kafka Connect standalone, SleepSinkConnector (bench/java)',
                recordsPerSec: c.recordsPerSec,
                avgRecordsPerPut: c.puts > 0 ? c.records / c.puts : undefined,
                cpuCores: c.cpuCores,
                ranDry: c.ranDry,
                detail: c,
              };
            }
            const r = await runChild({
              kind: 'worker',
              label,
              brokers,
              topic,
              topicRecords: L.topicRecords,
              mode,
              tasks,
              poolThreads: tasks,
              connectorClass: 'NoopSink',
              connectorProps: {
                'latency.ms': String(sinkMs),
                'max.inflight.batches': '1',
                'consumer.override.max.poll.records': String(L.maxPollRecords),
                'consumer.override.max.partition.fetch.bytes': String(L.producerBatchBytes),
              },
              fallbackLatencyMs: sinkMs,
              fallbackMaxPollRecords: L.maxPollRecords,
              measure: { kind: 'window', warmupMs: L.warmupMs, windowMs: L.windowMs },
              timeoutMs: 120_000,
            });
            return {
              via: r.via,
              recordsPerSec: r.recordsPerSec,
              avgRecordsPerPut: r.avgRecordsPerPut,
              cpuCores: r.cpuCores,
              ranDry: r.ranDry,
              detail: r,
            };
          });
          if (row) results.scenarios.latency.push({ sinkMs, partitions, mode, multiplier, tasks, ...row });
        }
      }
    }
    if (connectPlugin) rmSync(connectPlugin, { recursive: true, force: true });
  }
}
