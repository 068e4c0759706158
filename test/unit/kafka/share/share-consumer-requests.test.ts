/**
 * Which request a ShareConsumer sends when, on a fake transport that records every request: one request
 * per session at a time, acknowledgements riding on the next poll's ShareFetch, a ShareAcknowledge only
 * when no poll waits, RENEW on its own, and a short ShareFetch wait while acknowledgements could be
 * queued behind it (ADR 0005). The wire semantics themselves are covered by the integration tests.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ShareConsumer } from '../../../../src/kafka/share/share-consumer.js';
import type {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
} from '../../../../src/kafka/protocol/messages/share-acknowledge.js';
import type {
  ShareFetchRequest,
  ShareFetchResponse,
} from '../../../../src/kafka/protocol/messages/share-fetch.js';
import type { DecodedBatch, ShareTransport } from '../../../../src/kafka/share/transport.js';
import { decodedRecord } from './decoded-record.js';
import { assignedHeartbeat, onePartitionMetadata, TOPIC_ID } from './one-partition-cluster.js';

const NODE = 1;

type Sent = { api: 'fetch'; req: ShareFetchRequest } | { api: 'ack'; req: ShareAcknowledgeRequest };

/** A one-partition broker: hands out appended offsets, parks a fetch with nothing to give (up to MaxWaitMs). */
class FakeBroker implements ShareTransport {
  readonly sent: Sent[] = [];
  private next = 0;
  private end = 0;
  private inFlight = 0;
  private parked: (() => void) | undefined;
  private readonly batches = new Map<Buffer, DecodedBatch[]>();

  append(count: number): void {
    this.end += count;
    this.parked?.();
  }

  async metadata(names: readonly string[]) {
    return onePartitionMetadata(names, NODE);
  }
  async groupCoordinator() {
    return NODE;
  }
  async heartbeat() {
    return assignedHeartbeat();
  }
  async supportsRenew() {
    return true;
  }
  async decodeRecords(bytes: Buffer, topic: string, partition: number) {
    const batches = this.batches.get(bytes) ?? [];
    return batches.map((b) => ({ ...b, records: b.records.map((r) => ({ ...r, topic, partition })) }));
  }
  async close() {}

  async shareFetch(_node: number, req: ShareFetchRequest): Promise<ShareFetchResponse> {
    this.enter();
    this.sent.push({ api: 'fetch', req });
    try {
      if (this.next >= this.end) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, req.maxWaitMs);
          this.parked = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.parked = undefined;
      }
      const first = this.next;
      const last = Math.min(this.end, first + req.maxRecords) - 1;
      this.next = last + 1;
      const records = Buffer.alloc(1);
      const acquired = last >= first ? [{ firstOffset: first, lastOffset: last, deliveryCount: 1 }] : [];
      if (acquired.length > 0) {
        const recs = [];
        for (let o = first; o <= last; o++) recs.push(decodedRecord(o));
        const batch = { baseOffset: first, lastOffset: last, isControl: false, timestampType: 0 as const };
        this.batches.set(records, [{ ...batch, records: recs }]);
      }
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
                currentLeader: { leaderId: NODE, leaderEpoch: 0 },
                records,
                acquiredRecords: acquired,
              },
            ],
          },
        ],
        nodeEndpoints: [],
      };
    } finally {
      this.inFlight--;
    }
  }

  async shareAcknowledge(_node: number, req: ShareAcknowledgeRequest): Promise<ShareAcknowledgeResponse> {
    this.enter();
    this.sent.push({ api: 'ack', req });
    await new Promise((r) => setTimeout(r, 1));
    this.inFlight--;
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      acquisitionLockTimeoutMs: 30_000,
      responses: [],
      nodeEndpoints: [],
    };
  }

  private enter(): void {
    // the share session epoch forbids two requests at once in one session
    expect(this.inFlight).toBe(0);
    this.inFlight++;
  }
}

const ackTypes = (req: ShareFetchRequest | ShareAcknowledgeRequest) =>
  req.topics.flatMap((t) => t.partitions.flatMap((p) => p.acknowledgementBatches));

let consumer: ShareConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  consumer = undefined;
});

async function started(
  broker: FakeBroker,
  fetchMaxPolls?: number,
  ackLingerMs?: number,
): Promise<ShareConsumer> {
  consumer = new ShareConsumer({
    ...(fetchMaxPolls === undefined ? {} : { fetchMaxPolls }),
    ...(ackLingerMs === undefined ? {} : { ackLingerMs }),
    brokers: ['fake:9092'],
    groupId: 'g',
    logger: pino({ level: 'silent' }),
    transport: broker,
    fetchMaxWaitMs: 400,
    ackFlushDelayMs: 30,
    maxRecords: 5,
  });
  await consumer.subscribe(['t']);
  return consumer;
}

describe('ShareConsumer requests', () => {
  it('carries acknowledgements on the ShareFetch of a poll made in the same turn, with no ShareAcknowledge', async () => {
    const broker = new FakeBroker();
    broker.append(10);
    const c = await started(broker);
    const first = await c.poll();
    expect(first.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    const acked = c.acknowledge(first, 'accept');
    const second = await c.poll();
    expect(second.map((r) => r.offset)).toEqual([5, 6, 7, 8, 9]);
    expect((await acked)[0]!.error).toBeNull();
    const fetchWithAcks = broker.sent.filter((s) => s.api === 'fetch')[1]!;
    expect(ackTypes(fetchWithAcks.req)).toEqual([{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }]);
    expect(broker.sent.some((s) => s.api === 'ack')).toBe(false);
  });

  it('sends a ShareAcknowledge at the end of the turn when no poll waits', async () => {
    const broker = new FakeBroker();
    broker.append(3);
    const c = await started(broker);
    const records = await c.poll();
    const [result] = await c.acknowledge(records, 'release');
    expect(result!.error).toBeNull();
    const acks = broker.sent.filter((s) => s.api === 'ack');
    expect(acks).toHaveLength(1);
    expect(ackTypes(acks[0]!.req)).toEqual([{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [2] }]);
  });

  it('keeps the ShareFetch wait at ackFlushDelayMs while it holds records, at fetchMaxWaitMs otherwise', async () => {
    const broker = new FakeBroker();
    broker.append(2);
    const c = await started(broker);
    const held = await c.poll();
    expect(held).toHaveLength(2);
    expect(await c.poll({ maxWaitMs: 100 })).toEqual([]); // nothing new: the fetch came back after ≤ 30 ms
    const whileHolding = broker.sent.filter((s) => s.api === 'fetch').slice(1);
    expect(whileHolding.length).toBeGreaterThan(0);
    for (const s of whileHolding) expect((s.req as ShareFetchRequest).maxWaitMs).toBe(30);
    await c.acknowledge(held, 'accept');
    const before = broker.sent.length;
    const polling = c.poll({ maxWaitMs: 50 });
    await polling;
    const after = broker.sent.slice(before).filter((s) => s.api === 'fetch');
    expect(after.map((s) => (s.req as ShareFetchRequest).maxWaitMs)).toEqual([400]);
  });

  it('sends RENEW in its own ShareAcknowledge (IsRenewAck) even while a poll waits', async () => {
    const broker = new FakeBroker();
    broker.append(2);
    const c = await started(broker);
    const held = await c.poll();
    const renewed = c.acknowledge(held, 'renew');
    const polling = c.poll({ maxWaitMs: 50 });
    expect((await renewed)[0]!.error).toBeNull();
    await polling;
    const renewAcks = broker.sent.filter((s) => s.api === 'ack' && s.req.isRenewAck);
    expect(renewAcks).toHaveLength(1);
    expect(ackTypes(renewAcks[0]!.req)).toEqual([{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [4] }]);
    for (const s of broker.sent) if (s.api === 'fetch') expect(ackTypes(s.req)).toEqual([]);
    await Promise.all([c.acknowledge(held, 'accept'), c.commit()]);
  });

  it('an acknowledgement made while a fetch waits at the broker goes out once that fetch returns', async () => {
    const broker = new FakeBroker();
    broker.append(2);
    const c = await started(broker);
    const held = await c.poll();
    const waiting = c.poll({ maxWaitMs: 1000 }); // a fetch now waits at the broker (≤ 30 ms: we hold records)
    await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    const [result] = await c.acknowledge(held, 'accept');
    expect(result!.error).toBeNull();
    expect(performance.now() - t0).toBeLessThan(200);
    broker.append(1);
    expect((await waiting).map((r) => r.offset)).toEqual([2]);
  });

  it("with fetchMaxPolls, a ShareFetch asks for several polls' worth while polls take them fast; without, one", async () => {
    const fetchSizes = async (fetchMaxPolls?: number) => {
      const broker = new FakeBroker();
      broker.append(200);
      const c = await started(broker, fetchMaxPolls);
      for (let taken = 0; taken < 200;) {
        const records = await c.poll();
        taken += records.length;
        expect(records.length).toBeLessThanOrEqual(5);
        void c.acknowledge(records, 'accept');
      }
      await c.commit();
      await c.close();
      return broker.sent.flatMap((s) => (s.api === 'fetch' ? [s.req.maxRecords] : []));
    };
    const windowed = await fetchSizes(4);
    expect(windowed[0]).toBe(5);
    expect(Math.max(...windowed)).toBe(20);
    expect(new Set(await fetchSizes())).toEqual(new Set([5]));
  });

  describe('with ackLingerMs (ADR 0021)', () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it('acks with nobody polling wait the linger for a ShareFetch, then go in a ShareAcknowledge', async () => {
      const broker = new FakeBroker();
      broker.append(3);
      const c = await started(broker, undefined, 80);
      const records = await c.poll();
      const t0 = performance.now();
      const acked = c.acknowledge(records, 'accept');
      await sleep(30);
      expect(broker.sent.filter((s) => s.api === 'ack')).toEqual([]);
      expect((await acked)[0]!.error).toBeNull();
      expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
      const acks = broker.sent.filter((s) => s.api === 'ack');
      expect(acks).toHaveLength(1);
      expect(ackTypes(acks[0]!.req)).toEqual([{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1] }]);
    });

    it('lingering acks ride the ShareFetch of a later poll, with no ShareAcknowledge', async () => {
      const broker = new FakeBroker();
      broker.append(10);
      const c = await started(broker, undefined, 1000);
      const first = await c.poll();
      const acked = c.acknowledge(first, 'accept');
      await sleep(20);
      expect((await c.poll()).map((r) => r.offset)).toEqual([5, 6, 7, 8, 9]);
      expect((await acked)[0]!.error).toBeNull();
      const fetches = broker.sent.filter((s) => s.api === 'fetch');
      expect(ackTypes(fetches[1]!.req)).toEqual([{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }]);
      expect(broker.sent.some((s) => s.api === 'ack')).toBe(false);
    });

    it('commit() sends lingering acks at once', async () => {
      const broker = new FakeBroker();
      broker.append(3);
      const c = await started(broker, undefined, 5000);
      const records = await c.poll();
      void c.acknowledge(records, 'reject');
      const t0 = performance.now();
      const [result] = await c.commit();
      expect(result!.error).toBeNull();
      expect(performance.now() - t0).toBeLessThan(1000);
      const acks = broker.sent.filter((s) => s.api === 'ack');
      expect(acks).toHaveLength(1);
      expect(ackTypes(acks[0]!.req)).toEqual([{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [3] }]);
    });
  });
});
