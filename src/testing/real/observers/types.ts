/** What an observer is told about a run, and what it returns. */

/** What an observer is told about the run it reads. */
export interface ObservedRun {
  /** 1-based run number (shrinking re-runs count too). */
  readonly index: number;
  /** The run's topic (fresh for each run). */
  readonly topic: string;
  readonly groupId: string;
  /** The connector's properties as the run used them (topics, group, and your own settings). */
  readonly connector: Readonly<Record<string, string>>;
  /** Every record id of this run starts with this; ids are found in what observe() returns. */
  readonly idPrefix: string;
}

/**
 * Reads the sink after a run (once the worker stopped). Returns what the sink holds as text: lines,
 * rows as JSON, request bodies; the kit counts the run's record ids in it, so one record written
 * twice must appear twice.
 */
export type SinkObserver = (
  run: ObservedRun,
) => Promise<Iterable<string> | string> | Iterable<string> | string;

/** Counts each of the run's ids (`idPrefix` then digits) in the texts. */
export function countIds(texts: Iterable<string> | string, idPrefix: string): Map<string, number> {
  const counts = new Map<string, number>();
  const escaped = idPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`${escaped}\\d+(?!\\d)`, 'g');
  for (const text of typeof texts === 'string' ? [texts] : texts)
    for (const m of text.matchAll(re)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return counts;
}
