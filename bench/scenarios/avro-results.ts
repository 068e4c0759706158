/**
 * Scenario 9's results as data: what a run keeps, the ratios and the Markdown (bench/scenarios/avro.ts
 * runs it). Kept apart from the runner so results.ts and report.ts need nothing of the run itself.
 */
import type { ChildResult } from '../child-protocol.js';
import { ratio, round } from '../common.js';

export interface AvroResults {
  records: number;
  schemaId: number;
  avroBytesPerRecord: number;
  jsonBytesPerRecord: number;
  avro?: ChildResult;
  json?: ChildResult;
  samples: { avroCpuUs: number[]; jsonCpuUs: number[]; avroRate: number[]; jsonRate: number[] };
}

/** avroDecodeVsJson: CPU µs/record, Avro over JSON with schemas (≤ 1.5 is the goal); and the rates'. */
export function avroRatios(a: AvroResults | undefined): Record<string, number | null> {
  if (a === undefined) return {};
  return {
    avroDecodeVsJson: ratio(a.avro?.cpuUsPerRecord, a.json?.cpuUsPerRecord),
    avroRateVsJson: ratio(
      a.avro?.steadyRecordsPerSec ?? a.avro?.recordsPerSec,
      a.json?.steadyRecordsPerSec ?? a.json?.recordsPerSec,
    ),
  };
}

export function renderAvro(a: AvroResults): string[] {
  const line = (what: string, r: ChildResult | undefined, bytes: number) =>
    `| ${what} | ${bytes} | ${r ? round(r.steadyRecordsPerSec ?? r.recordsPerSec) : '–'} | ${r ? round(r.cpuUsPerRecord, 2) : '–'} | ${r?.avgRecordsPerPut === undefined ? '–' : round(r.avgRecordsPerPut, 1)} |`;
  const ratios = avroRatios(a);
  return [
    '',
    `## 9. Avro decode vs JSON with schemas (${a.records} records, NoopSink, share, 1 task; best of ${a.samples.avroCpuUs.length})`,
    '',
    '| converter | bytes/record | steady records/s | CPU µs/record | records/put |',
    '|---|---|---|---|---|',
    line('AvroConverter (registry)', a.avro, a.avroBytesPerRecord),
    line('JsonConverter, schemas.enable=true', a.json, a.jsonBytesPerRecord),
    '',
    `avroDecodeVsJson (CPU µs/record, goal ≤ 1.5): **${ratios.avroDecodeVsJson ?? '–'}**; records/s Avro ÷ JSON: ${ratios.avroRateVsJson ?? '–'}. Samples (CPU µs/record): Avro ${a.samples.avroCpuUs.join(', ')}; JSON ${a.samples.jsonCpuUs.join(', ')}.`,
  ];
}
