/**
 * A set of Kafka offsets kept as sorted, disjoint, inclusive ranges. The share consumer's records of one
 * partition are handed out in runs of consecutive offsets and acknowledged in the same runs, so a whole
 * fetch is usually one range: adding and deleting an offset at a range's end is O(1) and allocates
 * nothing, where a `Set<number>` hashed every offset and grew its table (~5 % of the main thread and
 * ~120 B per record in a 100 B drain). Offsets anywhere else cost a binary search over the ranges.
 */
export class OffsetSet implements Iterable<number> {
  /** starts[i]..ends[i], ascending; ends[i] + 1 < starts[i + 1] (adjacent ranges are merged). */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The range last touched: acknowledgements walk a range in order, so it usually holds the next one. */
  private hint = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(offset: number): void {
    const n = this.starts.length;
    if (n > 0 && offset === this.ends[n - 1]! + 1) {
      this.ends[n - 1] = offset;
      this.count++;
      return;
    }
    if (n === 0 || offset > this.ends[n - 1]! + 1) {
      this.starts.push(offset);
      this.ends.push(offset);
      this.count++;
      return;
    }
    const i = this.firstEndingAtOrAfter(offset - 1);
    // ranges i-1 and before end before offset - 1; range i ends at or after it
    if (offset >= this.starts[i]! && offset <= this.ends[i]!) return;
    const joinsNext = this.starts[i] === offset + 1;
    const joinsPrev = this.ends[i] === offset - 1;
    if (joinsPrev && i + 1 < n && this.starts[i + 1] === offset + 1) {
      this.ends[i] = this.ends[i + 1]!;
      this.starts.splice(i + 1, 1);
      this.ends.splice(i + 1, 1);
    } else if (joinsPrev) {
      this.ends[i] = offset;
    } else if (joinsNext) {
      this.starts[i] = offset;
    } else {
      this.starts.splice(i, 0, offset);
      this.ends.splice(i, 0, offset);
    }
    this.count++;
  }

  has(offset: number): boolean {
    return this.rangeOf(offset) >= 0;
  }

  /** The offsets that are not in the set (a new empty array when all are). */
  missing(offsets: readonly number[]): number[] {
    const out: number[] = [];
    for (let k = 0; k < offsets.length; k++) if (this.rangeOf(offsets[k]!) < 0) out.push(offsets[k]!);
    return out;
  }

  delete(offset: number): boolean {
    const i = this.rangeOf(offset);
    if (i < 0) return false;
    const start = this.starts[i]!;
    const end = this.ends[i]!;
    if (start === end) {
      this.starts.splice(i, 1);
      this.ends.splice(i, 1);
    } else if (offset === start) {
      this.starts[i] = start + 1;
    } else if (offset === end) {
      this.ends[i] = end - 1;
    } else {
      this.starts.splice(i + 1, 0, offset + 1);
      this.ends.splice(i, 0, offset - 1);
    }
    this.count--;
    return true;
  }

  clear(): void {
    this.starts.length = 0;
    this.ends.length = 0;
    this.hint = 0;
    this.count = 0;
  }

  *[Symbol.iterator](): Iterator<number> {
    for (let i = 0; i < this.starts.length; i++) {
      for (let o = this.starts[i]!; o <= this.ends[i]!; o++) yield o;
    }
  }

  /** The index of the range holding `offset`, or -1. */
  private rangeOf(offset: number): number {
    const h = this.hint;
    if (h < this.starts.length && offset >= this.starts[h]! && offset <= this.ends[h]!) return h;
    const i = this.firstEndingAtOrAfter(offset);
    if (i < this.starts.length && offset >= this.starts[i]!) {
      this.hint = i;
      return i;
    }
    return -1;
  }

  /** The first range whose end is ≥ `offset` (the range count when there is none). */
  private firstEndingAtOrAfter(offset: number): number {
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
