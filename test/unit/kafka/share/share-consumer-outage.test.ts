// A share consumer whose broker is down for a minute: its fetches and metadata refreshes fail every
// attempt, and each failure used to be a WARN line (every ~8 s against a real broker, as each attempt
// first waits out the connection retries; every 200 ms here). Now: the first line, one per 30 s per
// broker and cause with `repeatsLeftOut`, and one INFO line when the broker answers again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import type { ShareFetchResponse } from '../../../../src/kafka/protocol/messages/share-fetch.js';
import { ShareConsumer } from '../../../../src/kafka/share/share-consumer.js';
import type { ShareTransport } from '../../../../src/kafka/share/transport.js';
import { capturingLogger } from '../../cli/capturing-logger.js';
import { assignedHeartbeat, onePartitionMetadata } from './one-partition-cluster.js';

const ADDRESS = '127.0.0.1:9092';

function refused(): KafkaConnectionError {
  const kafkajs = Object.assign(new Error(`Connection error: connect ECONNREFUSED ${ADDRESS}`), {
    name: 'KafkaJSConnectionError',
  });
  return new KafkaConnectionError(ADDRESS, kafkajs.message, { cause: kafkajs });
}

/** One broker (node 1) leading partition 0; while `down`, every ShareFetch and Metadata fails at once. */
function broker() {
  const state = { down: false };
  const empty: ShareFetchResponse = {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    acquisitionLockTimeoutMs: 30_000,
    responses: [],
    nodeEndpoints: [],
  };
  const transport: ShareTransport = {
    metadata: async (names) => {
      if (state.down) throw refused();
      return onePartitionMetadata(names);
    },
    groupCoordinator: async () => 1,
    heartbeat: async () => assignedHeartbeat(),
    shareFetch: async (_node, req) => {
      if (state.down) throw refused();
      await new Promise((r) => setTimeout(r, req.maxWaitMs));
      return empty;
    },
    shareAcknowledge: async () => ({ ...empty }),
    supportsRenew: async () => true,
    decodeRecords: async () => [],
    close: async () => {},
  };
  return { transport, state };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('ShareConsumer during a broker outage', () => {
  it('logs a failing fetch and metadata refresh once per 30 s each, then once that they recovered', async () => {
    const { transport, state } = broker();
    const { logger, lines } = capturingLogger('info');
    const consumer = new ShareConsumer({
      brokers: [ADDRESS],
      groupId: 'g',
      logger,
      transport,
      fetchMaxWaitMs: 100,
    });
    const subscribed = consumer.subscribe(['t']);
    await vi.advanceTimersByTimeAsync(100);
    await subscribed;
    let polling = true;
    const polls = (async () => {
      while (polling) await consumer.poll({ maxWaitMs: 500 }).catch(() => undefined);
    })();
    await vi.advanceTimersByTimeAsync(1_000);
    state.down = true;
    await vi.advanceTimersByTimeAsync(61_000);
    state.down = false;
    await vi.advanceTimersByTimeAsync(2_000);
    polling = false;
    await vi.advanceTimersByTimeAsync(1_000);
    await polls;
    const closed = consumer.close();
    await vi.advanceTimersByTimeAsync(1_000);
    await closed;

    const said = (msg: string) => lines.filter((l) => l.msg === msg);
    const fetchFailed = said('share fetch failed; retrying');
    // attempts every ~200 ms for 61 s: the first line, one at 30 s and one at 60 s
    expect(fetchFailed).toHaveLength(3);
    expect(fetchFailed[0]).toMatchObject({
      level: 40,
      nodeId: 1,
      broker: ADDRESS,
      err: 'connect ECONNREFUSED',
    });
    expect(fetchFailed[0]).not.toHaveProperty('repeatsLeftOut');
    expect(fetchFailed[1]!['repeatsLeftOut']).toBeGreaterThan(50);
    const metadataFailed = said('metadata refresh failed');
    expect(metadataFailed.length).toBeGreaterThanOrEqual(1);
    expect(metadataFailed.length).toBeLessThanOrEqual(3);
    expect(metadataFailed[0]).toMatchObject({ level: 40, broker: ADDRESS, err: 'connect ECONNREFUSED' });
    expect(said('share fetch recovered')).toEqual([
      expect.objectContaining({
        level: 35,
        nodeId: 1,
        failures: expect.any(Number),
        failedForMs: expect.any(Number),
      }),
    ]);
    expect(said('metadata refresh recovered')).toHaveLength(1);
  });
});
