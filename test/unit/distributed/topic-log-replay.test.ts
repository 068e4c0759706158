// The config and status topics are read by a kafkajs consumer in a group that commits nothing. After a
// crash (a broker outage) kafkajs runs that consumer again and it reads the topic from the start once
// more. Handed over twice, every connector config read as new restarted every connector on the worker
// after each outage (seen by hand: a distributed worker, the broker stopped for 45 s).
import type { EachBatchPayload, Kafka } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KafkaTopicLog, type LogRecord } from '../../../src/distributed/herder/topic-log.js';

const message = (offset: number, key: string) => ({
  offset: String(offset),
  key: Buffer.from(key),
  value: Buffer.from(`v${offset}`),
});

/** A kafkajs client whose consumer hands over `runs` (each a list of batches: a first read, a re-read). */
function fakeKafka(runs: Array<Array<{ partition: number; messages: ReturnType<typeof message>[] }>>) {
  let eachBatch: ((p: EachBatchPayload) => Promise<void>) | undefined;
  const consumer = {
    connect: async () => {},
    disconnect: async () => {},
    subscribe: async () => {},
    run: async (o: { eachBatch: (p: EachBatchPayload) => Promise<void> }) => {
      eachBatch = o.eachBatch;
    },
  };
  const client = {
    consumer: () => consumer,
    producer: () => ({ connect: async () => {}, disconnect: async () => {} }),
    admin: () => ({
      connect: async () => {},
      disconnect: async () => {},
      fetchTopicOffsets: async () => [{ partition: 0, high: '0', low: '0' }],
    }),
  } as unknown as Kafka;
  const deliver = async () => {
    for (const run of runs)
      for (const b of run)
        await eachBatch!({
          batch: {
            partition: b.partition,
            messages: b.messages,
            lastOffset: () => b.messages.at(-1)!.offset,
          },
        } as unknown as EachBatchPayload);
  };
  return { client, deliver };
}

describe('KafkaTopicLog', () => {
  it('hands each record over once, when kafkajs reads the topic again after a crash', async () => {
    const first = [
      { partition: 0, messages: [message(0, 'connector-a'), message(1, 'target-state-a')] },
      { partition: 0, messages: [message(2, 'commit-a')] },
    ];
    // the restarted consumer, from the start again, then one new record
    const again = [
      {
        partition: 0,
        messages: [message(0, 'connector-a'), message(1, 'target-state-a'), message(2, 'commit-a')],
      },
      { partition: 0, messages: [message(3, 'connector-b')] },
    ];
    const { client, deliver } = fakeKafka([first, again]);
    const log = new KafkaTopicLog({
      kafka: client,
      topic: 'configs',
      readerGroupPrefix: 'r',
      logger: pino({ level: 'silent' }),
    });
    const seen: LogRecord[] = [];
    await log.start((records) => seen.push(...records));
    await deliver();
    expect(seen.map((r) => [r.offset, r.key])).toEqual([
      [0n, 'connector-a'],
      [1n, 'target-state-a'],
      [2n, 'commit-a'],
      [3n, 'connector-b'],
    ]);
  });
});
