/**
 * A greedy pass after fast-check's shrinking. fast-check shrinks each part of a schedule on its own
 * terms (arrays from the front, numbers towards zero), which can leave a delivery or a round that
 * plays no part in the failure. Removing or plainening one thing at a time, keeping each change
 * that still fails, turns "a counter-example" into "the story": usually one record and one fault.
 *
 * Removing one thing at a time can get stuck on a story told over two deliveries, such as a put that
 * wrote and then a crash in the next delivery before the first one's acknowledgement went out. Neither
 * delivery fails alone, but one delivery with another fault does: a crash after its put. So while more
 * than one delivery is left, each delivery alone with each fault the schedule may use is tried first.
 */
import type { CrashPoint, Delivery, Fault, FaultKind, Round, SinkSchedule } from './arbitraries.js';

const without = <T>(items: readonly T[], index: number): T[] => items.filter((_, i) => i !== index);

function withDelivery(s: SinkSchedule, r: number, d: number, change: Partial<Delivery>): SinkSchedule {
  const rounds: Round[] = s.rounds.map((round, i) =>
    i === r ? round.map((delivery, j) => (j === d ? { ...delivery, ...change } : delivery)) : round,
  );
  return { ...s, rounds };
}

const POINTS: readonly CrashPoint[] = ['before-put', 'after-put'];

/** One fault of each allowed kind and crash point; `errant` needs record indexes and is left out. */
function faultsOf(kinds: readonly FaultKind[]): Fault[] {
  const out: Fault[] = [];
  for (const kind of kinds) {
    if (kind === 'none' || kind === 'fatal' || kind === 'ack-lost') out.push({ kind });
    else if (kind === 'crash') for (const point of POINTS) out.push({ kind, point });
    else if (kind === 'retriable') for (const when of POINTS) out.push({ kind, when });
  }
  return out;
}

/**
 * Simpler variants of a schedule, the biggest simplifications first. `faults` are the fault kinds a
 * schedule may use (those it was generated with).
 */
export function* simplerSchedules(s: SinkSchedule, faults: readonly FaultKind[]): Generator<SinkSchedule> {
  const deliveries = s.rounds.flat();
  if (deliveries.length > 1)
    for (const d of deliveries)
      for (const fault of faultsOf(faults)) yield { ...s, rounds: [[{ ...d, fault }]] };
  for (let r = 0; r < s.rounds.length; r++) yield { ...s, rounds: without(s.rounds, r) };
  for (let r = 0; r < s.rounds.length; r++) {
    const round = s.rounds[r]!;
    if (round.length > 1)
      for (let d = 0; d < round.length; d++)
        yield { ...s, rounds: s.rounds.map((x, i) => (i === r ? without(round, d) : x)) };
  }
  // from the end first: the offsets of the records before it stay where they were
  for (let i = s.records.length - 1; i >= 0 && s.records.length > 1; i--)
    yield { ...s, records: without(s.records, i) };
  for (let r = 0; r < s.rounds.length; r++) {
    for (const [j, d] of s.rounds[r]!.entries()) {
      if (d.fault.kind !== 'none') yield withDelivery(s, r, j, { fault: { kind: 'none' } });
      if (d.latencyMs !== 0) yield withDelivery(s, r, j, { latencyMs: 0 });
      if (d.instance !== 0) yield withDelivery(s, r, j, { instance: 0 });
      if (d.maxRecords > 1) yield withDelivery(s, r, j, { maxRecords: 1 });
    }
  }
  if (s.renewal) yield { ...s, renewal: false };
  if (s.lockDurationMs !== 30_000) yield { ...s, lockDurationMs: 30_000 };
  if (s.deliveryCountLimit !== 5) yield { ...s, deliveryCountLimit: 5 };
}

/**
 * Keeps applying the first simplification that still fails, until none does or `maxRuns` runs are
 * spent. `fails` runs a schedule and returns what went wrong, or undefined when it passed.
 */
export async function simplify<O>(
  schedule: SinkSchedule,
  outcome: O,
  fails: (s: SinkSchedule) => Promise<O | undefined>,
  faults: readonly FaultKind[],
  maxRuns = 200,
): Promise<{ schedule: SinkSchedule; outcome: O; steps: number }> {
  let best = { schedule, outcome, steps: 0 };
  let runs = 0;
  for (let improved = true; improved && runs < maxRuns;) {
    improved = false;
    for (const candidate of simplerSchedules(best.schedule, faults)) {
      if (runs++ >= maxRuns) break;
      const failed = await fails(candidate);
      if (failed === undefined) continue;
      best = { schedule: candidate, outcome: failed, steps: best.steps + 1 };
      improved = true;
      break;
    }
  }
  return best;
}
