import type { Schema } from './schema.js';

/** One record header after the header converter ran (Connect's Header). */
export interface Header {
  readonly key: string;
  readonly value: unknown;
  readonly schema: Schema | undefined;
}

/**
 * The headers of a record, in wire order, duplicates kept (Kafka allows repeated keys).
 * Read-only: a transform that changes headers builds a new ConnectHeaders.
 */
export class ConnectHeaders implements Iterable<Header> {
  static readonly EMPTY = new ConnectHeaders([]);

  readonly #headers: readonly Header[];

  constructor(headers: readonly Header[]) {
    this.#headers = headers;
  }

  get size(): number {
    return this.#headers.length;
  }

  [Symbol.iterator](): Iterator<Header> {
    return this.#headers[Symbol.iterator]();
  }

  /** The last header with this key, which is the one Kafka clients treat as current. */
  lastWithName(key: string): Header | undefined {
    for (let i = this.#headers.length - 1; i >= 0; i--) {
      const h = this.#headers[i]!;
      if (h.key === key) return h;
    }
    return undefined;
  }

  allWithName(key: string): Header[] {
    return this.#headers.filter((h) => h.key === key);
  }

  toArray(): Header[] {
    return [...this.#headers];
  }

  /** A copy with one more header, for transforms. */
  with(key: string, value: unknown, schema?: Schema): ConnectHeaders {
    return new ConnectHeaders([...this.#headers, { key, value, schema }]);
  }
}
