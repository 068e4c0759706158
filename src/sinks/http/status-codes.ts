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
   * the reason the list is not one (for a ConfigError naming the key).
   */
  static parse(items: readonly string[]): StatusCodes | string {
    const ranges: (readonly [number, number])[] = [];
    for (const item of items) {
      const m = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(item.trim());
      if (m === null) return `${JSON.stringify(item)} is neither a status code nor a range like 500-599`;
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      if (from < 100 || to > 599 || from > to) {
        return `${JSON.stringify(item)} is not a status code or ascending range within 100..599`;
      }
      ranges.push([from, to]);
    }
    return new StatusCodes(ranges, items.map((i) => i.trim()).join(','));
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
