/**
 * Renewals that fail because the task stops. A stop releases every batch still held, and a release goes
 * out before a renewal queued for the same records (acknowledger.ts: final acknowledgements first), so
 * the broker refuses that renewal; the member leaving the group then settles the renewals still queued
 * as failed (closeSession). Each batch in flight logged `renew failed; releasing early` at WARN: a burst
 * of warnings on every graceful stop, about batches the stop was releasing anyway.
 */
import { describe, expect, it } from 'vitest';
import { LockSupervisor } from '../../../../../src/actors/task/share/supervisor.js';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import type { PartitionAckResult, ShareRecord } from '../../../../../src/kafka/share/share-consumer.js';
import { capturingLogger } from '../../../cli/capturing-logger.js';
import { BacklogConsumer, HeldPool, runnerOver } from './share-task-runner-fakes.js';

/** Renewal works, but its answer waits until the test settles it. */
class RenewingConsumer extends BacklogConsumer {
  readonly renewals: Array<(error: { code: string; message: string } | null) => void> = [];
  closed = false;

  override async renewSupported(): Promise<boolean> {
    return true;
  }

  override acknowledge(records: readonly ShareRecord[], type: string): Promise<PartitionAckResult[]> {
    if (type !== 'renew') return super.acknowledge(records, type);
    const offsets = records.map((r) => r.offset);
    return new Promise((resolve) =>
      this.renewals.push((error) =>
        resolve([{ topic: 't', partition: 0, type, offsets, error } as unknown as PartitionAckResult]),
      ),
    );
  }

  override async close(): Promise<void> {
    this.closed = true;
    // as closeSession does with the renewals still queued when the member leaves
    for (const settle of this.renewals.splice(0))
      settle({ code: 'SHARESINK_CONSUMER_CLOSED', message: 'the share consumer is closed' });
  }
}

const WARN = 40;

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A runner with 3 batches fetched, their put held, and a renewal of each batch asked and unanswered. */
async function renewing() {
  const clock = new SimulatedClock();
  const consumer = new RenewingConsumer(3);
  const pool = new HeldPool();
  const { logger, lines } = capturingLogger('debug');
  const runner = runnerOver(consumer, pool, {
    logger,
    shutdownGraceMs: 10,
    supervisor: new LockSupervisor({ logger, clock, lockDurationMs: 30_000 }),
  });
  await runner.start();
  await until(() => consumer.polls >= 3 && pool.puts.length === 1);
  clock.advance(15_000);
  await until(() => consumer.renewals.length === 3);
  return { clock, consumer, pool, runner, lines };
}

describe('ShareTaskRunner: lock renewals at stop', () => {
  it('a renewal refused because the stop released its batch is no warning; the stop line counts them', async () => {
    const { consumer, runner, lines } = await renewing();
    const stopping = runner.stop();
    await until(() => consumer.acks.length === 3);
    // the broker refuses the first renewal: its records were released by the stop just before
    consumer.renewals.shift()!({ code: 'SHARESINK_KAFKA_ERROR', message: 'INVALID_RECORD_STATE' });
    await stopping;

    expect(consumer.acks).toEqual(['release 0..9', 'release 10..19', 'release 20..29']);
    expect(consumer.closed).toBe(true);
    expect(lines.filter((l) => l.level >= WARN)).toEqual([]);
    const stopped = lines.find((l) => l.msg === 'share task stopped');
    expect(stopped).toMatchObject({ renewalsFailedWhileStopping: 3 });
  });

  it('a renewal that fails while the task runs is still a warning, and its batch is released early', async () => {
    const { consumer, runner, lines } = await renewing();
    consumer.renewals.shift()!({ code: 'SHARESINK_KAFKA_ERROR', message: 'INVALID_RECORD_STATE' });
    await until(() => consumer.acks.length === 1);
    expect(consumer.acks).toEqual(['release 0..9']);
    expect(lines.filter((l) => l.level >= WARN).map((l) => [l.msg, l.batchId])).toEqual([
      ['renew failed; releasing early', 'c-0-1'],
    ]);
    await runner.stop();
    expect(lines.find((l) => l.msg === 'share task stopped')).toMatchObject({
      renewalsFailedWhileStopping: 2,
    });
  });

  it('a renewal refused because its batch was accepted first is no warning either', async () => {
    const { consumer, pool, runner, lines } = await renewing();
    // the put ends: the ACCEPTs go out before the renewals queued for the same records, which are refused
    pool.puts[0]!.end({ kind: 'ok' });
    await until(() => consumer.acks.length === 3);
    for (const settle of consumer.renewals.splice(0))
      settle({ code: 'SHARESINK_KAFKA_ERROR', message: 'INVALID_RECORD_STATE' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(consumer.acks).toEqual(['accept 0..9', 'accept 10..19', 'accept 20..29']);
    expect(lines.filter((l) => l.level >= WARN)).toEqual([]);
    await runner.stop();
  });
});
