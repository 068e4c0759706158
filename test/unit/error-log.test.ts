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
  it('logs one line per failed record, with its coordinates and error', async () => {
    const { log, lines } = capture();
    logFailedRecords(
      log,
      { enable: true, includeMessages: false },
      'b1',
      [rec(10), rec(11), rec(12)],
      [0, 2],
      (i) => `bad ${i}`,
    );
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.offset, l.error, l.value])).toEqual([
      [10, 'bad 0', undefined],
      [12, 'bad 2', undefined],
    ]);
    expect(lines[0]).toMatchObject({ topic: 'orders', partition: 1, batchId: 'b1', msg: 'record failed' });
  });

  it('adds key, value and headers with errors.log.include.messages, and logs nothing when disabled', async () => {
    const { log, lines } = capture();
    logFailedRecords(log, { enable: true, includeMessages: true }, 'b2', [rec(5)], [0], () => 'boom');
    logFailedRecords(log, { enable: false, includeMessages: true }, 'b3', [rec(6)], [0], () => 'boom');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ key: 'k5', value: 'v5', headers: [{ key: 'h', value: 'x' }] });
  });
});
