/** Connect's DropHeaders: removes every header with one of the given names. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyList } from '../config-validators.js';
import { ConnectHeaders } from '../headers.js';
import type { SinkRecord } from '../sink-record.js';
import type { Transformation } from './transformation.js';

export const DROP_HEADERS_DEF = new ConfigDef().define({
  name: 'headers',
  type: 'list',
  validator: nonEmptyList('a non-empty comma-separated list of header names'),
  importance: 'high',
  documentation: 'The names of the headers to remove.',
});

export class DropHeaders implements Transformation {
  #names = new Set<string>();

  configure(props: Readonly<Record<string, string>>): void {
    this.#names = new Set(DROP_HEADERS_DEF.parse(props).headers);
  }

  apply(record: SinkRecord): SinkRecord {
    if (record.headers.size === 0) return record;
    const kept = record.headers.toArray().filter((h) => !this.#names.has(h.key));
    if (kept.length === record.headers.size) return record;
    return record.newRecord({ headers: kept.length === 0 ? ConnectHeaders.EMPTY : new ConnectHeaders(kept) });
  }
}
