// One scenario's outcome with the faults fixture as the sink: ids produced against ids written, the
// dead-letter topic, and the counters of the workers that stopped gracefully, as a results row.
import { kafkaVersion } from '../../integration/harness/kafka.js';
import { deadLetteredIds, missing, readSink, type SinkCount } from './records.js';
import type { FaultResult } from './report.js';
import { totals, type Scenario, type SummaryFile, type Totals } from './workers.js';

export interface Outcome {
  row: FaultResult;
  /** Produced ids found neither in the sink nor, for `expectDeadLettered` ids, in the dead-letter topic. */
  lost: string[];
  sink: SinkCount;
  deadLettered: string[];
  totals: Totals;
}

export async function fileSinkOutcome(
  s: Scenario,
  o: {
    scenario: string;
    workers: number;
    produced: readonly string[];
    summaries: readonly SummaryFile[];
    notes: string;
    sinkFiles?: string[];
    /** Ids that are meant to end in the dead-letter topic (poison). */
    expectDeadLettered?: ReadonlySet<string>;
  },
): Promise<Outcome> {
  const sink = readSink(...(o.sinkFiles ?? [s.sinkFile]));
  const deadLettered = await deadLetteredIds(s.dlq);
  const expected = o.expectDeadLettered ?? new Set<string>();
  const deadAsMeant = new Set(deadLettered.filter((id) => expected.has(id)));
  const lost = missing(o.produced, sink.distinct, deadAsMeant);
  const t = totals(o.summaries);
  const row: FaultResult = {
    id: s.id,
    scenario: o.scenario,
    sink: 'faults fixture (file)',
    workers: o.workers,
    produced: o.produced.length,
    delivered: sink.distinct.size,
    lost: lost.length,
    duplicates: sink.writes - sink.distinct.size,
    deadLettered: deadLettered.length,
    redeliveries: t.redelivered,
    renewals: t.renewed,
    earlyReleases: t.releasedEarly,
    lockExpiries: t.expired,
    failedPuts: t.putsFailed,
    wallSeconds: (Date.now() - s.startedAt) / 1000,
    notes: o.notes,
    measuredAt: new Date().toISOString(),
    kafkaVersion: kafkaVersion(),
  };
  return { row, lost, sink, deadLettered, totals: t };
}
