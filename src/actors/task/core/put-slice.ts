/**
 * One put may carry several acquired batches (ADR 0007); each batch is still acknowledged on its own.
 * This cuts a put result down to the records of one batch, with record indexes re-based to that batch.
 */
import type { PutResult } from '../../../pool/protocol.js';

/** The result for the `count` records that start at index `from` of the put. */
export function sliceResult(result: PutResult, from: number, count: number): PutResult {
  const end = from + count;
  const inside = <T extends { readonly index: number }>(items: readonly T[]): T[] => {
    const out: T[] = [];
    for (const item of items)
      if (item.index >= from && item.index < end) out.push({ ...item, index: item.index - from });
    return out;
  };
  const converterFailures = result.converterFailures.length === 0 ? [] : inside(result.converterFailures);
  if (result.kind === 'perRecord') {
    const rejected = inside(result.rejected);
    // a batch with none of the errant records was simply put
    if (rejected.length === 0) {
      const { durationMs, convertMs, threadId, taskStarted } = result;
      return { kind: 'ok', durationMs, convertMs, threadId, taskStarted, converterFailures };
    }
    return { ...result, rejected, converterFailures };
  }
  return { ...result, converterFailures };
}
