/**
 * Turning per-record acknowledgements into the wire's AcknowledgementBatches.
 *
 * A batch is an inclusive offset range with either ONE type for the whole range or one type per offset
 * (KIP-932). Contiguous offsets share a batch; a run where every type is equal is sent in the compact
 * one-type form, which keeps the common case (a whole accepted batch) to a single 17-byte entry.
 */
import type { AcknowledgementBatch } from '../protocol/messages/share-acknowledge.js';

/** Kafka's AcknowledgeType codes (ShareFetch / ShareAcknowledge). */
export const AckCode = {
  gap: 0,
  accept: 1,
  release: 2,
  reject: 3,
  renew: 4,
} as const;

/** What an application can say of a record it was given. */
export type AcknowledgeType = 'accept' | 'release' | 'reject' | 'renew';

export type AckBatch = AcknowledgementBatch;

/**
 * Builds the acknowledgement batches for one partition.
 * @param offsets offsets to acknowledge (any order; no duplicates)
 * @param codes the AckCode for each offset, same index as `offsets`; or one code for all of them (the
 *   usual case, a whole put accepted: no array of codes to build or read)
 */
export function buildAckBatches(offsets: ArrayLike<number>, codes: ArrayLike<number> | number): AckBatch[] {
  if (offsets.length === 0) return [];
  if (isAscending(offsets)) return batchesOfSorted(offsets, codes);
  const order = Array.from({ length: offsets.length }, (_, i) => i);
  order.sort((a, b) => offsets[a]! - offsets[b]!);
  return batchesOfSorted(
    order.map((i) => offsets[i]!),
    typeof codes === 'number' ? codes : order.map((i) => codes[i]!),
  );
}

/** The batches of ascending `offsets`; acknowledgements mostly come in offset order, so no copy then. */
function batchesOfSorted(offsets: ArrayLike<number>, codes: ArrayLike<number> | number): AckBatch[] {
  const n = offsets.length;
  const one = typeof codes === 'number';
  const batches: AckBatch[] = [];
  let start = 0;
  while (start < n) {
    let end = start;
    let uniform = true;
    const firstCode = one ? codes : codes[start]!;
    while (end + 1 < n && offsets[end + 1]! === offsets[end]! + 1) {
      end++;
      if (!one && codes[end]! !== firstCode) uniform = false;
    }
    const types: number[] = [];
    if (uniform) types.push(firstCode);
    else for (let i = start; i <= end; i++) types.push((codes as ArrayLike<number>)[i]!);
    batches.push({ firstOffset: offsets[start]!, lastOffset: offsets[end]!, acknowledgeTypes: types });
    start = end + 1;
  }
  return batches;
}

/** The inverse of {@link buildAckBatches}: every (offset, code) the batches stand for, in offset order. */
export function expandAckBatches(batches: readonly AckBatch[]): Array<{ offset: number; code: number }> {
  const out: Array<{ offset: number; code: number }> = [];
  for (const b of batches) {
    const single = b.acknowledgeTypes.length === 1;
    for (let o = b.firstOffset; o <= b.lastOffset; o++) {
      out.push({ offset: o, code: single ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[o - b.firstOffset]! });
    }
  }
  return out;
}

function isAscending(a: ArrayLike<number>): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! <= a[i - 1]!) return false;
  return true;
}
