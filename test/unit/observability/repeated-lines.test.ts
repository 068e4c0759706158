import { describe, expect, it } from 'vitest';
import { kafkajsLogger } from '../../../src/kafka/kafkajs/internals.js';
import { RepeatedLines } from '../../../src/observability/repeated-lines.js';
import { capturingLogger } from '../cli/capturing-logger.js';

describe('repeated kafkajs warnings', () => {
  it('admits the first line of a kind, counts repeats within the window, reports them with the next one', () => {
    let now = 0;
    const r = new RepeatedLines(30_000, () => now);
    expect(r.admit('a')).toBe(0);
    now = 1000;
    expect(r.admit('a')).toBeUndefined();
    expect(r.admit('b')).toBe(0);
    now = 29_999;
    expect(r.admit('a')).toBeUndefined();
    now = 30_000;
    expect(r.admit('a')).toBe(2);
    now = 61_000;
    expect(r.admit('a')).toBe(0);
  });

  it('a broker that is down: one WARN per broker instead of one per reconnect', () => {
    const { logger, lines } = capturingLogger('trace');
    const conn = kafkajsLogger(logger).namespace('Connection');
    for (let i = 0; i < 50; i++) {
      conn.error('Connection error: connect ECONNREFUSED 127.0.0.1:1', { broker: '127.0.0.1:1' });
      conn.error('Connection error: connect ECONNREFUSED 127.0.0.1:2', { broker: '127.0.0.1:2' });
    }
    expect(lines.map((l) => [l['level'], l['broker']])).toEqual([
      [40, '127.0.0.1:1'],
      [40, '127.0.0.1:2'],
    ]);
  });

  it('keeps lines whose details are in other fields: the same text about another partition is another event', () => {
    const { logger, lines } = capturingLogger('warn');
    const consumer = kafkajsLogger(logger).namespace('Consumer');
    consumer.warn('Offset out of range, resetting to default offset', { topic: 'orders', partition: 0 });
    consumer.warn('Offset out of range, resetting to default offset', { topic: 'orders', partition: 3 });
    expect(lines.map((l) => l['partition'])).toEqual([0, 3]);
  });
});
