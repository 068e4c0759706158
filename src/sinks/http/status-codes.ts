/**
 * Sets of HTTP status codes written the way operators write them in a connector file:
 * `408,429,500-599`. Parsed once at start; `has()` is then a lookup per response, not per record.
 */
export class StatusCodes {
  readonly #ranges: readonly (readonly [number, number])[];
  readonly text: string;

  private constructor(ranges: readonly (readonly [number, number])[], text: string) {
    this.#ranges = ranges;
    this.text = text;
  }

  has(status: number): boolean {
    return this.#ranges.some(([from, to]) => status >= from && status <= to);
  }

  /**
   * Items are codes (`429`) or inclusive ranges (`500-599`), each within 100..599. Returns the set, or
   * what is wrong with the list, worded to follow the value as written: `is …` for a one-entry list,
   * `has "abc", which is …` naming each bad entry of a longer one (for a ConfigError naming the key).
   */
  static parse(items: readonly string[]): StatusCodes | string {
    const ranges: (readonly [number, number])[] = [];
    const bad: [entry: string, reason: string][] = [];
    for (const item of items) {
      const m = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(item.trim());
      if (m === null) {
        bad.push([item, 'not a status code or a range']);
        continue;
      }
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      if (from < 100 || to > 599) bad.push([item, 'outside 100..599']);
      else if (from > to) bad.push([item, 'a descending range']);
      else ranges.push([from, to]);
    }
    if (bad.length === 0) return new StatusCodes(ranges, items.map((i) => i.trim()).join(','));
    if (items.length === 1) return `is ${bad[0]![1]}`;
    const named = bad.map(([entry, reason]) => `${JSON.stringify(entry.trim())}, which is ${reason}`);
    return `has ${named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')}, and ${named.at(-1)!}`}`;
  }
}

export type StatusClass = 'success' | 'retriable' | 'other';

/**
 * What a response status means for the records of its request. Success wins over retriable when an
 * operator lists a code in both, because a request the server accepted must never be sent again.
 */
export function classifyStatus(status: number, success: StatusCodes, retriable: StatusCodes): StatusClass {
  if (success.has(status)) return 'success';
  if (retriable.has(status)) return 'retriable';
  return 'other';
}
