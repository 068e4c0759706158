/**
 * One record shape from the wire to the pool: the records `poll()` hands out are RawRecords as they are
 * (same field names, types the same or narrower), the share runner passes them to the pool without
 * copying, and every field survives the pool's wire batch. The type checks below fail `npm run
 * typecheck` when ShareRecord and RawRecord drift apart; the runtime checks fail the test.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { toRawRecords } from '../../../../src/actors/task/share/put-records.js';
import type { RawRecord } from '../../../../src/connect/raw-record.js';
import type { ShareFetchResponse } from '../../../../src/kafka/protocol/messages/share-fetch.js';
import { ShareConsumer, type ShareRecord } from '../../../../src/kafka/share/share-consumer.js';
import type { DecodedBatch, ShareTransport } from '../../../../src/kafka/share/transport.js';
import { decodeWireBatch, encodeWireBatch } from '../../../../src/pool/wire-batch.js';
import { assignedHeartbeat, onePartitionMetadata, TOPIC_ID } from './one-partition-cluster.js';
import { RAW_FIELDS } from '../raw-record-fields.js';

// every RawRecord field is on a ShareRecord, and a ShareRecord has no field a RawRecord lacks
const noMissing: [Exclude<keyof RawRecord, keyof ShareRecord>] extends [never] ? true : false = true;
const noExtra: [Exclude<keyof ShareRecord, keyof RawRecord>] extends [never] ? true : false = true;
// and a ShareRecord is assignable to a RawRecord (each type the same or narrower)
const assignable = (r: ShareRecord): RawRecord => r;

const LOG_APPEND_TIME = 1_700_000_000_123;

/** One partition, one LogAppendTime batch of offsets 7–9 acquired for the third time, then nothing. */
function transport(): ShareTransport {
  const bytes = Buffer.alloc(1);
  // what the decoder gives: records already in ShareRecord's shape, the delivery count still unknown
  const batch = (topic: string, partition: number): DecodedBatch => ({
    baseOffset: 7,
    lastOffset: 9,
    isControl: false,
    timestampType: 1,
    records: [7, 8, 9].map((offset) => ({
      topic,
      partition,
      offset,
      timestamp: LOG_APPEND_TIME,
      timestampType: 'LogAppendTime' as const,
      key: offset === 8 ? null : Buffer.from(`k${offset}`),
      value: Buffer.from(`v${offset}`),
      headers:
        offset === 9
          ? [
              { key: 'h', value: Buffer.from('x') },
              { key: 'n', value: null },
            ]
          : [],
      deliveryCount: 0,
    })),
  });
  let served = false;
  return {
    metadata: async (names) => onePartitionMetadata(names),
    groupCoordinator: async () => 1,
    heartbeat: async () => assignedHeartbeat(),
    supportsRenew: async () => true,
    decodeRecords: async (b, topic, partition) => (b === bytes ? [batch(topic, partition)] : []),
    close: async () => {},
    shareAcknowledge: async () => ({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      acquisitionLockTimeoutMs: 30_000,
      responses: [],
      nodeEndpoints: [],
    }),
    shareFetch: async (_node, req): Promise<ShareFetchResponse> => {
      const first = !served;
      served = true;
      if (!first) await new Promise((r) => setTimeout(r, Math.min(req.maxWaitMs, 20)));
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        acquisitionLockTimeoutMs: 30_000,
        responses: [
          {
            topicId: TOPIC_ID,
            partitions: [
              {
                partitionIndex: 0,
                errorCode: 0,
                errorMessage: null,
                acknowledgeErrorCode: 0,
                acknowledgeErrorMessage: null,
                currentLeader: { leaderId: 1, leaderEpoch: 0 },
                records: first ? bytes : Buffer.alloc(0),
                acquiredRecords: first ? [{ firstOffset: 7, lastOffset: 9, deliveryCount: 3 }] : [],
              },
            ],
          },
        ],
        nodeEndpoints: [],
      };
    },
  };
}

let consumer: ShareConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  consumer = undefined;
});

async function polled(): Promise<ShareRecord[]> {
  consumer = new ShareConsumer({
    brokers: ['fake:9092'],
    groupId: 'g',
    logger: pino({ level: 'silent' }),
    transport: transport(),
  });
  await consumer.subscribe(['t']);
  const records = await consumer.poll({ maxWaitMs: 2000 });
  expect(records).toHaveLength(3);
  return records;
}

describe('ShareRecord as the pool input', () => {
  it('is a RawRecord field for field', async () => {
    expect([noMissing, noExtra]).toEqual([true, true]);
    for (const r of await polled()) for (const f of RAW_FIELDS) expect(f in assignable(r)).toBe(true);
  });

  it('goes to the pool as it is: one batch passes through, several are joined, no record is copied', async () => {
    const records = await polled();
    const one = [{ records }];
    expect(toRawRecords(one)).toBe(records);
    const joined = toRawRecords([{ records: records.slice(0, 1) }, { records: records.slice(1) }]);
    expect(joined).toHaveLength(3);
    joined.forEach((r, i) => expect(r).toBe(records[i]));
  });

  it('keeps every field through the wire batch: timestamp type, delivery count, null key, headers', async () => {
    const records = await polled();
    const decoded = decodeWireBatch(encodeWireBatch(toRawRecords([{ records }])));
    expect(decoded).toEqual(
      records.map((r) => ({
        topic: 't',
        partition: 0,
        offset: r.offset,
        timestamp: LOG_APPEND_TIME,
        timestampType: 'LogAppendTime',
        key: r.key,
        value: r.value,
        headers: r.headers,
        deliveryCount: 3,
      })),
    );
    expect(decoded[1]!.key).toBeNull();
    expect(decoded[2]!.headers.map((h) => [h.key, h.value?.toString() ?? null])).toEqual([
      ['h', 'x'],
      ['n', null],
    ]);
  });
});
