/** Share records on their way to the pool: one put's records are its batches' records, in order. */
import type { RawRecord } from '../../../connect/raw-record.js';
import type { ShareRecord } from '../../../kafka/share/share-consumer.js';

/**
 * The records of the put's batches, in order: a batch's records start where the previous one's end.
 * A ShareRecord is structurally a RawRecord (share-record.ts), so no record is copied: one batch's
 * array goes to the pool as it is, several are joined.
 */
export function toRawRecords(
  batches: readonly { readonly records: readonly ShareRecord[] }[],
): readonly RawRecord[] {
  if (batches.length === 1) return batches[0]!.records;
  // concat, not flatMap: ~2 µs against ~200 µs for 4 batches of 500 (node 20, /tmp micro-benchmark)
  return ([] as RawRecord[]).concat(...batches.map((b) => b.records));
}
