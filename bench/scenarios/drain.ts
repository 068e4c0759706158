/**
 * Scenarios 1 and 2 (and the rows scenario 5 reads): topics pre-filled with ProducerPerformance (100 B
 * and 1 KiB records, 1 and 6 partitions), drained by the Java tools (the ceiling) and by sharesink with
 * NoopSink in share mode, classic mode and on the consumer protocol (KIP-848); best of plan.repeats, Java
 * and sharesink in alternating order.
 */
import os from 'node:os';
import type { WorkerRunSpec } from '../child-protocol.js';
import { createTopic, round, topicRecordCount } from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import { consumerPerformance, producerPerformance, shareConsumerPerformance } from '../java-tools.js';
import { FILL_PROPS } from '../plan.js';
import type { SharesinkRow } from '../results.js';

export interface DrainTopic {
  topic: string;
  recordSize: number;
  partitions: number;
  records: number;
}

/** Creates and fills the drain topics (for scenarios 1, 2, 5 and --profile). */
export async function fillDrainTopics(ctx: BenchContext, profile: boolean): Promise<DrainTopic[]> {
  const { plan, results, brokers, step, topicName, createdTopics, wants } = ctx;
  const drainTopics: DrainTopic[] = [];
  if (wants(1) || wants(2) || wants(5) || profile) {
    for (const recordSize of [100, 1024] as const) {
      for (const partitions of plan.partitions) {
        const topic = topicName(`${recordSize}b-p${partitions}`);
        const records = plan.records[String(recordSize) as '100' | '1024'];
        const filled = await step(`fill ${topic} (${records} × ${recordSize} B)`, async () => {
          await createTopic(brokers, topic, partitions);
          createdTopics.push(topic);
          const r = await producerPerformance({ brokers, topic, records, recordSize, props: FILL_PROPS });
          const held = await topicRecordCount(brokers, topic);
          if (held !== records) throw new Error(`${topic} holds ${held} records, not ${records}`);
          return r;
        });
        if (filled) {
          results.fills.push({ topic, recordSize, partitions, ...filled, records });
          drainTopics.push({ topic, recordSize, partitions, records });
        }
      }
    }
  }
  return drainTopics;
}

/** A NoopSink drain of a pre-filled topic (scenarios 2 and 5, and the profile run). */
export const noopSpec = (
  brokers: string,
  t: DrainTopic,
  mode: 'share' | 'classic' | 'consumer',
  tasks: number,
  label: string,
): WorkerRunSpec => ({
  kind: 'worker',
  label,
  brokers,
  topic: t.topic,
  topicRecords: t.records,
  mode,
  tasks,
  poolThreads: os.availableParallelism(),
  connectorClass: 'NoopSink',
  connectorProps: { 'consumer.override.max.poll.records': '500' },
  fallbackMaxPollRecords: 500,
  measure: { kind: 'drain', records: t.records },
  timeoutMs: 240_000,
});

/** Scenarios 1 (the Java tools) and 2 (sharesink NoopSink drains) on every drain topic. */
export async function runDrains(ctx: BenchContext, drainTopics: readonly DrainTopic[]): Promise<void> {
  const { plan, results, brokers, measured, wants } = ctx;
  if (wants(1) || wants(2) || wants(5)) {
    /** Keeps the best of the repeats (best-of-N: the run least disturbed by everything else). */
    const keepBest = <R extends { recordsPerSec: number }>(
      rows: Array<{ topic: string; result: R; samples: number[] }>,
      find: (row: { topic: string; result: R }) => boolean,
      make: () => { topic: string; result: R; samples: number[] },
      r: R | undefined,
    ): void => {
      if (!r) return;
      const row = rows.find(find);
      if (!row) {
        const fresh = make();
        fresh.samples.push(round(r.recordsPerSec));
        rows.push(fresh);
        return;
      }
      row.samples.push(round(r.recordsPerSec));
      if (r.recordsPerSec > row.result.recordsPerSec) row.result = r;
    };
    for (const t of drainTopics) {
      const counts = [...new Set([1, t.partitions])];
      const javaClassic = async (rep: number) => {
        if (!wants(1)) return;
        const c = await measured(`ConsumerPerformance ${t.topic} #${rep + 1}`, () =>
          consumerPerformance({
            brokers,
            topic: t.topic,
            group: `jc-${rep}-${t.topic}`,
            records: t.records,
          }),
        );
        keepBest(
          results.scenarios.ceiling,
          (e) => e.topic === t.topic && e.result.tool === 'ConsumerPerformance',
          () => ({ ...t, result: c!, samples: [] }),
          c,
        );
      };
      const javaShare = async (rep: number, threads: number) => {
        if (!wants(1)) return;
        const s = await measured(`ShareConsumerPerformance ${t.topic} threads=${threads} #${rep + 1}`, () =>
          shareConsumerPerformance({
            brokers,
            topic: t.topic,
            group: `js-${threads}-${rep}-${t.topic}`,
            records: t.records,
            threads,
          }),
        );
        keepBest(
          results.scenarios.ceiling,
          (e) =>
            e.topic === t.topic &&
            e.result.tool === 'ShareConsumerPerformance' &&
            e.result.consumers === threads,
          () => ({ ...t, result: s!, samples: [] }),
          s,
        );
      };
      const ours = async (rep: number, mode: 'share' | 'classic' | 'consumer', tasks: number) => {
        if (!(wants(2) || wants(5))) return;
        const label = `noop-${mode}-t${tasks}-${t.recordSize}b-p${t.partitions}-${rep}`;
        const r = await measured(`sharesink ${mode} tasks=${tasks} ${t.topic} #${rep + 1}`, () =>
          runChild(noopSpec(brokers, t, mode, tasks, label)),
        );
        keepBest(
          results.scenarios.noop,
          (e) =>
            e.topic === t.topic && (e as SharesinkRow).mode === mode && (e as SharesinkRow).tasks === tasks,
          () => ({ ...t, mode, tasks, result: r!, samples: [] }),
          r,
        );
      };
      // the pairs behind the headline ratios run plan.repeats times, in alternating order
      for (let rep = 0; rep < plan.repeats; rep++) {
        const java = async () => {
          await javaClassic(rep);
          for (const c of counts) await javaShare(rep, c);
        };
        const sharesink = async () => {
          for (const c of counts) await ours(rep, 'share', c);
          await ours(rep, 'classic', 1);
          await ours(rep, 'consumer', 1);
        };
        if (rep % 2 === 0) {
          await java();
          await sharesink();
        } else {
          await sharesink();
          await java();
        }
      }
      for (const c of counts) if (c !== 1) await ours(0, 'classic', c);
    }
  }
}
