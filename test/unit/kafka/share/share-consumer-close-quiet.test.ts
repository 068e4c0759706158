// Nothing of a share consumer outlives close(): a metadata refresh still waiting on the cluster when
// close() is called (its connection retries back off) used to fail ~345 ms after close() resolved,
// with a WARN "metadata refresh failed … the KafkaCluster is closed" and a 200 ms timer after it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import type { ShareFetchResponse } from '../../../../src/kafka/protocol/messages/share-fetch.js';
import { ShareConsumer } from '../../../../src/kafka/share/share-consumer.js';
import type { ShareTransport } from '../../../../src/kafka/share/transport.js';
import { capturingLogger } from '../../cli/capturing-logger.js';
import { assignedHeartbeat, onePartitionMetadata } from './one-partition-cluster.js';

const ADDRESS = '127.0.0.1:9092';

/** While `down`, fetches fail at once and a metadata refresh waits for the cluster to close, then fails 345 ms later. */
function broker() {
  const state = { down: false, closed: false, refreshesWaiting: 0 };
  const wakeOnClose: Array<() => void> = [];
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
      if (!state.down) return onePartitionMetadata(names);
      state.refreshesWaiting++;
      await new Promise<void>((r) => (state.closed ? r() : wakeOnClose.push(r)));
      await new Promise((r) => setTimeout(r, 345));
      throw new KafkaConnectionError('cluster', 'the KafkaCluster is closed');
    },
    groupCoordinator: async () => 1,
    heartbeat: async () => assignedHeartbeat(),
    shareFetch: async (_node, req) => {
      if (state.down) throw new KafkaConnectionError(ADDRESS, `connect ECONNREFUSED ${ADDRESS}`);
      await new Promise((r) => setTimeout(r, req.maxWaitMs));
      return empty;
    },
    shareAcknowledge: async () => ({ ...empty }),
    supportsRenew: async () => true,
    decodeRecords: async () => [],
    close: async () => {
      state.closed = true;
      for (const wake of wakeOnClose.splice(0)) wake();
    },
  };
  return { transport, state };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('ShareConsumer.close()', () => {
  it('leaves no log line and no timer behind once it resolved, a metadata refresh in flight included', async () => {
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
    const poll = consumer.poll({ maxWaitMs: 5_000 }).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(300);
    state.down = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(state.refreshesWaiting).toBeGreaterThan(0);

    let closed = false;
    void consumer.close().then(() => (closed = true));
    for (let waited = 0; !closed && waited < 10_000; waited += 10) await vi.advanceTimersByTimeAsync(10);
    expect(closed).toBe(true);
    const linesAtClose = lines.length;
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    await poll;
    expect(lines.slice(linesAtClose).map((l) => l.msg)).toEqual([]);
    expect(lines.map((l) => l.msg)).not.toContain('metadata refresh failed');
  });
});

describe('KafkaCluster.close()', () => {
  it('ends a retry loop waiting out its backoff at once, with no timer left', async () => {
    const { KafkaCluster } = await import('../../../../src/kafka/cluster.js');
    const { logger } = capturingLogger('info');
    let attempts = 0;
    const cluster = new KafkaCluster({
      brokers: [ADDRESS],
      logger,
      retry: { initialBackoffMs: 5_000, maxBackoffMs: 5_000 },
      openConnection: async () => {
        attempts++;
        throw new KafkaConnectionError(ADDRESS, `connect ECONNREFUSED ${ADDRESS}`);
      },
    });
    const refresh = cluster.refreshMetadata([]).then(
      () => undefined,
      (err: Error) => err,
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(attempts).toBe(1);
    await cluster.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    expect((await refresh)?.message).toMatch(/the KafkaCluster is closed/);
    expect(attempts).toBe(1);
  });
});
