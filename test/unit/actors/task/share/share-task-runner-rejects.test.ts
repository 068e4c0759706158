/**
 * Rejected records with `errors.tolerance=all` and `errors.log.enable=false` (Connect's default): as in
 * Connect, no line per failed record (that is what errors.log.enable turns on), but never silent either:
 * the records are counted (`recordsRejected`: the summary, the progress line, /metrics) and the batch
 * that ended with them says so once, at INFO.
 */
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../../../cli/capturing-logger.js';
import { BacklogConsumer, HeldPool, runnerOver } from './share-task-runner-fakes.js';

const rejected = (...indexes: number[]) => indexes.map((index) => ({ index, message: `bad ${index}` }));

describe('ShareTaskRunner: rejected records without errors.log.enable', () => {
  for (const enable of [false, true])
    it(`errors.log.enable=${enable}: counted, the batch said once${enable ? ', and each record logged' : ''}`, async () => {
      const consumer = new BacklogConsumer(1);
      const pool = new HeldPool();
      const { logger, lines } = capturingLogger('info');
      const runner = runnerOver(consumer, pool, {
        logger,
        errorsTolerance: 'all',
        errorsLog: { enable, includeMessages: false },
      });
      await runner.start();
      while (pool.puts.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      pool.puts[0]!.end({ kind: 'perRecord', rejected: rejected(1, 4, 7) });
      while (consumer.acks.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
      await runner.stop();

      expect(consumer.acks.sort()).toEqual(['accept 0..9', 'reject 1..7']);
      expect(runner.counters.snapshot()).toMatchObject({ recordsAccepted: 7, recordsRejected: 3 });
      expect(lines.filter((l) => l.msg === 'batch done')).toMatchObject([
        { level: 30, batchId: 'c-0-1', disposition: 'partial', records: 10, rejected: 3 },
      ]);
      expect(lines.filter((l) => /^records? failed$/.test(String(l.msg))).map((l) => l.offsets)).toEqual(
        enable ? ['t-0@1', 't-0@4', 't-0@7'] : [],
      );
    });
});
