import { describe, expect, it } from 'vitest';
import { SinkRecord } from '../../../../src/connect/sink-record.js';
import { planRequests, requestKey } from '../../../../src/sinks/http/requests.js';
import { retryAfterMs } from '../../../../src/sinks/http/send.js';

const rec = (topic: string, partition: number, offset: number) =>
  new SinkRecord({
    topic,
    partition,
    offset,
    timestamp: null,
    timestampType: 'NoTimestampType',
    key: null,
    value: offset,
  });

describe('HttpSink request planning', () => {
  it('cuts a batch into requests of batch.max.size, per URL, keeping batch order', () => {
    const records = [rec('a', 0, 1), rec('b', 0, 1), rec('a', 1, 5), rec('a', 0, 2), rec('b', 0, 2)];
    const planned = planRequests(records, 'http://h/in/${topic}', 2);
    expect(planned.map((p) => [p.url, p.records.map((r) => `${r.topic}${r.partition}@${r.offset}`)])).toEqual(
      [
        ['http://h/in/a', ['a0@1', 'a1@5']],
        ['http://h/in/a', ['a0@2']],
        ['http://h/in/b', ['b0@1', 'b0@2']],
      ],
    );
    // without ${topic} every record goes to one URL
    expect(planRequests(records, 'http://h/in', 500)).toHaveLength(1);
    expect(planRequests(records, 'http://h/in', 1)).toHaveLength(5);
  });

  it('the idempotency key depends on the set of records only', () => {
    const one = [rec('a', 0, 1), rec('a', 0, 2), rec('b', 3, 9)];
    const key = requestKey(one);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(requestKey([...one].reverse())).toBe(key);
    expect(requestKey([rec('a', 0, 1), rec('a', 0, 3), rec('b', 3, 9)])).not.toBe(key);
    expect(requestKey([rec('a', 0, 1), rec('a', 0, 2)])).not.toBe(key);
    // topic "a0" partition 1 is not topic "a" partition 01
    expect(requestKey([rec('a0', 1, 1)])).not.toBe(requestKey([rec('a', 1, 1)]));
    // same records, same plan, same keys: a retried batch is cut the same way
    expect(planRequests(one, 'http://h/${topic}', 1).map((p) => p.key)).toEqual(
      planRequests(one, 'http://h/${topic}', 1).map((p) => p.key),
    );
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
