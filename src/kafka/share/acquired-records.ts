/**
 * Selecting what a ShareFetch response actually gave us. The `Records` bytes may hold whole batches of
 * which only part was acquired by this member; only offsets inside an AcquiredRecords range are ours.
 * Acquired offsets with no data record (control markers, compacted-away offsets) come back as gaps, which
 * the consumer acknowledges with type GAP so the broker can move the share-partition start offset on.
 */
import type { AcquiredRecords } from '../protocol/messages/share-fetch.js';
import type { ShareRecord } from './share-record.js';
import type { DecodedBatch } from './transport.js';

export interface Selection {
  /** The decoded records themselves (not copies), each given its range's delivery count. */
  readonly records: ShareRecord[];
  /** Acquired offsets that carry no application record. */
  readonly gaps: number[];
}

/** `acquired` ranges are ascending and disjoint (as the broker sends them). */
export function selectAcquired(
  batches: readonly DecodedBatch[],
  acquired: readonly AcquiredRecords[],
): Selection {
  const records: ShareRecord[] = [];
  const gaps: number[] = [];
  if (acquired.length === 0) return { records, gaps };

  // One sorted walk over data records and acquired ranges together: O(records + ranges).
  const ordered = [...acquired].sort((a, b) => a.firstOffset - b.firstOffset);
  let r = 0;
  let next = ordered[0]!.firstOffset; // the lowest acquired offset not yet accounted for
  for (const batch of batches) {
    if (batch.isControl) continue;
    const batchRecords = batch.records;
    for (let i = 0; i < batchRecords.length; i++) {
      const rec = batchRecords[i]!;
      while (r < ordered.length && rec.offset > ordered[r]!.lastOffset) {
        for (let o = next; o <= ordered[r]!.lastOffset; o++) gaps.push(o);
        r++;
        if (r < ordered.length) next = ordered[r]!.firstOffset;
      }
      if (r >= ordered.length) break;
      const range = ordered[r]!;
      if (rec.offset < range.firstOffset) continue;
      for (let o = next; o < rec.offset; o++) gaps.push(o);
      rec.deliveryCount = range.deliveryCount;
      records.push(rec);
      next = rec.offset + 1;
    }
  }
  for (; r < ordered.length; r++) {
    const range = ordered[r]!;
    for (let o = Math.max(next, range.firstOffset); o <= range.lastOffset; o++) gaps.push(o);
    if (r + 1 < ordered.length) next = ordered[r + 1]!.firstOffset;
  }
  return { records, gaps };
}
