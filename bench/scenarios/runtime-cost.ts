/** Scenario 5: CPU µs per record and peak RSS of the 1-task, 100 B NoopSink drains of scenario 2. */
import { round } from '../common.js';
import type { BenchContext } from '../context.js';

export function runtimeCost(ctx: BenchContext): void {
  const { results, wants } = ctx;
  if (wants(5)) {
    for (const row of results.scenarios.noop.filter((r) => r.tasks === 1 && r.recordSize === 100)) {
      const r = row.result;
      results.scenarios.runtimeCost.push({
        topic: row.topic,
        partitions: row.partitions,
        mode: row.mode,
        tasks: row.tasks,
        via: r.via,
        avgRecordsPerPut: r.avgRecordsPerPut === undefined ? null : round(r.avgRecordsPerPut, 1),
        cpuUsPerRecord: round(r.cpuUsPerRecord, 2),
        cpuCores: round(r.cpuCores, 2),
        steadyRecordsPerSec: r.steadyRecordsPerSec === undefined ? null : round(r.steadyRecordsPerSec),
        peakRssMb: round(r.peakRssMb, 1),
        rssAfterStartMb: r.rssAfterStartMb === undefined ? null : round(r.rssAfterStartMb, 1),
      });
    }
  }
}
