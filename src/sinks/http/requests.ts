import { createHash } from 'node:crypto';
import type { SinkRecord } from '../../connect/sink-record.js';

const TOPIC = '${topic}';

/** The records of one HTTP request and where they go. */
export interface PlannedRequest {
  readonly url: string;
  readonly records: readonly SinkRecord[];
  /** Derived from the records' coordinates only: the same records give the same key, in any order. */
  readonly key: string;
}

/**
 * Splits a batch into requests: records for the same URL (the URL may name the topic) keep their
 * batch order and go in groups of at most `maxSize`. Requests are planned from the batch alone, so a
 * batch put again after a RetriableError is cut into the same requests with the same keys.
 */
export function planRequests(
  records: readonly SinkRecord[],
  urlTemplate: string,
  maxSize: number,
): PlannedRequest[] {
  const perTopic = urlTemplate.includes(TOPIC);
  const byUrl = new Map<string, SinkRecord[]>();
  for (const record of records) {
    const url = perTopic ? urlTemplate.replaceAll(TOPIC, record.topic) : urlTemplate;
    const group = byUrl.get(url);
    if (group === undefined) byUrl.set(url, [record]);
    else group.push(record);
  }
  const planned: PlannedRequest[] = [];
  for (const [url, group] of byUrl) {
    for (let i = 0; i < group.length; i += maxSize) {
      const slice = group.slice(i, i + maxSize);
      planned.push({ url, records: slice, key: requestKey(slice) });
    }
  }
  return planned;
}

/**
 * 32 hex digits of SHA-256 over the sorted topic/partition/offset triples. A redelivered request with
 * the same records carries the same key, so a receiver that remembers keys can drop it.
 */
export function requestKey(records: readonly SinkRecord[]): string {
  const coordinates = records
    .map((r) => `${r.topic}\u0000${r.partition}\u0000${r.offset}`)
    .sort()
    .join('\n');
  return createHash('sha256').update(coordinates).digest('hex').slice(0, 32);
}
