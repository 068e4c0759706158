import { describe, expect, it } from 'vitest';
import { logFailedRecords } from '../../src/actors/errors/log-reporter.js';
import { capturingLogger } from './cli/capturing-logger.js';

function capture() {
  const { logger, lines } = capturingLogger('info');
  return { log: logger, lines };
}

const rec = (offset: number) => ({
  topic: 'orders',
  partition: 1,
  offset,
  key: Buffer.from(`k${offset}`),
  value: Buffer.from(`v${offset}`),
  headers: [{ key: 'h', value: Buffer.from('x') }],
});

describe('errors.log.enable', () => {
  it('logs a batch-wide error once for the batch, naming its records compactly', async () => {
    const { log, lines } = capture();
    const batch = [rec(10), rec(11), rec(12), rec(14), { ...rec(3), partition: 2 }];
    logFailedRecords(
      log,
      { enable: true, includeMessages: false },
      'b1',
      batch,
      [0, 1, 2, 3, 4],
      () => 'sink down',
    );
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      batchId: 'b1',
      records: 5,
      offsets: 'orders-1@10-12,14 orders-2@3',
      error: 'sink down',
      msg: 'records failed',
    });
    expect(lines[0]).not.toHaveProperty('messages');
  });

  it('logs records that failed for their own reasons one line per reason, saying which records', async () => {
    const { log, lines } = capture();
    logFailedRecords(
      log,
      { enable: true, includeMessages: false },
      'b1',
      [rec(10), rec(11), rec(12), rec(13)],
      [0, 2, 3],
      (i) => (i === 0 ? 'bad key' : 'bad value'),
    );
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.offsets, l.records, l.error, l.msg])).toEqual([
      ['orders-1@10', 1, 'bad key', 'record failed'],
      ['orders-1@12-13', 2, 'bad value', 'records failed'],
    ]);
  });

  it('adds key, value and headers with errors.log.include.messages, and logs nothing when disabled', async () => {
    const { log, lines } = capture();
    logFailedRecords(log, { enable: true, includeMessages: true }, 'b2', [rec(5)], [0], () => 'boom');
    logFailedRecords(log, { enable: false, includeMessages: true }, 'b3', [rec(6)], [0], () => 'boom');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]!['messages']).toEqual([
      {
        topic: 'orders',
        partition: 1,
        offset: 5,
        key: 'k5',
        value: 'v5',
        headers: [{ key: 'h', value: 'x' }],
      },
    ]);
  });
});
