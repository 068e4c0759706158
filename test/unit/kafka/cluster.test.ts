import { describe, expect, it } from 'vitest';
import { KafkaCluster } from '../../../src/kafka/cluster.js';
import type { BrokerConnection, BrokerConnectionOptions } from '../../../src/kafka/connection.js';
import { KafkaConnectionError, KafkaError } from '../../../src/kafka/errors/kafka-errors.js';
import type { ApiDefinition } from '../../../src/kafka/protocol/api.js';
import type {
  MetadataResponse,
  MetadataResponseTopic,
} from '../../../src/kafka/protocol/messages/metadata.js';
import type { ApiVersionsResponse } from '../../../src/kafka/protocol/messages/api-versions.js';

type Handler = (api: string, request: unknown, conn: FakeConnection) => unknown;

class FakeConnection implements BrokerConnection {
  readonly apiVersions = {
    errorCode: 0,
    apiKeys: [],
    finalizedFeatures: [],
  } as unknown as ApiVersionsResponse;
  connected = true;
  private listeners: (() => void)[] = [];
  readonly calls: string[] = [];
  constructor(
    readonly nodeId: number,
    readonly host: string,
    readonly port: number,
    private readonly handler: Handler,
  ) {}
  get address(): string {
    return `${this.host}:${this.port}`;
  }
  versions(): undefined {
    return undefined;
  }
  finalizedFeature(): undefined {
    return undefined;
  }
  pickVersion(): number {
    return 0;
  }
  send<T>(): Promise<T> {
    throw new Error('not used');
  }
  async call<Req, Res>(api: ApiDefinition<Req, Res>, request: Req): Promise<Res> {
    this.calls.push(api.name);
    return this.handler(api.name, request, this) as Res;
  }
  onClose(l: () => void): () => void {
    this.listeners.push(l);
    return () => {};
  }
  /** the broker went away */
  drop(): void {
    this.connected = false;
    for (const l of this.listeners) l();
  }
  async close(): Promise<void> {
    this.drop();
  }
}

function topic(name: string, topicId: string, leaders: number[], errorCode = 0): MetadataResponseTopic {
  return {
    errorCode,
    name,
    topicId,
    isInternal: false,
    partitions: leaders.map((leaderId, i) => ({
      errorCode: 0,
      partitionIndex: leaders.length - 1 - i, // unsorted on purpose
      leaderId,
      leaderEpoch: 0,
      replicaNodes: [leaderId],
      isrNodes: [leaderId],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: 0,
  };
}

function metadata(topics: MetadataResponseTopic[]): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: [
      { nodeId: 1, host: 'b1', port: 9092, rack: null },
      { nodeId: 2, host: 'b2', port: 9092, rack: 'r2' },
    ],
    clusterId: 'c',
    controllerId: 1,
    topics,
    errorCode: 0,
  };
}

function cluster(handler: Handler, failures: Record<string, number> = {}) {
  const opened: FakeConnection[] = [];
  const attempts: string[] = [];
  const c = new KafkaCluster({
    brokers: ['boot:9092'],
    retry: { initialBackoffMs: 1, maxBackoffMs: 2, maxAttempts: 4 },
    openConnection: async (o: BrokerConnectionOptions) => {
      const address = `${o.host}:${o.port}`;
      attempts.push(address);
      if ((failures[address] ?? 0) > 0) {
        failures[address]!--;
        throw new KafkaConnectionError(address, 'ECONNREFUSED');
      }
      const conn = new FakeConnection(o.nodeId, o.host, o.port, handler);
      opened.push(conn);
      return conn;
    },
  });
  return { c, opened, attempts };
}

describe('KafkaCluster', () => {
  it('bootstraps, learns brokers and maps topic names ⇄ ids with sorted partitions', async () => {
    const { c, opened } = cluster((api) =>
      api === 'Metadata' ? metadata([topic('t', 'ID-t', [2, 1])]) : undefined,
    );
    await c.connect();
    expect([...c.nodes().keys()]).toEqual([1, 2]);
    expect(c.clusterId).toBe('c');
    const [t] = await c.refreshMetadata(['t']);
    expect(t!.partitions.map((p) => [p.partition, p.leaderId])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(c.topicById('ID-t')?.name).toBe('t');
    expect(c.leaderFor('ID-t', 1)).toBe(2);
    expect(c.leaderFor('ID-t', 9)).toBeUndefined();
    expect(opened.map((o) => [o.address, o.nodeId])).toEqual([['boot:9092', -1]]);
    await c.close();
  });

  it('forgets the old id of a deleted and re-created topic, and topics that are gone', async () => {
    let round = 0;
    const { c } = cluster((api) => {
      if (api !== 'Metadata') return undefined;
      round++;
      if (round === 1) return metadata([topic('t', 'OLD', [1])]);
      if (round === 2) return metadata([topic('t', 'NEW', [1])]);
      return metadata([topic('t', 'NEW', [], 3)]);
    });
    await c.refreshMetadata(['t']);
    await c.refreshMetadata(['t']);
    expect(c.topicById('OLD')).toBeUndefined();
    expect(c.topicByName('t')?.topicId).toBe('NEW');
    expect(await c.refreshMetadata(['t'])).toEqual([]);
    expect(c.topicByName('t')).toBeUndefined();
  });

  it('resolves unknown topic ids with a Metadata request by id', async () => {
    const requests: unknown[] = [];
    const { c } = cluster((api, req) => {
      requests.push(req);
      return metadata([topic('t', 'ID-t', [1])]);
    });
    const found = await c.resolveTopicIds(['ID-t']);
    expect(found.get('ID-t')?.name).toBe('t');
    expect(requests[0]).toMatchObject({ topics: [{ topicId: 'ID-t', name: null }] });
    await c.resolveTopicIds(['ID-t']); // known now: no new request
    expect(requests).toHaveLength(1);
  });

  it('connects to nodes by id, shares a pending connect, reconnects after a drop with backoff', async () => {
    const { c, opened, attempts } = cluster((api) => (api === 'Metadata' ? metadata([]) : undefined), {
      'b2:9092': 2,
    });
    await c.connect();
    const [a, b] = await Promise.all([c.connectionTo(2), c.connectionTo(2)]);
    expect(a).toBe(b);
    expect(attempts.filter((x) => x === 'b2:9092')).toHaveLength(3); // two refusals, then success
    expect(a.nodeId).toBe(2);
    (a as FakeConnection).drop();
    const again = await c.connectionTo(2);
    expect(again).not.toBe(a);
    expect(opened.filter((o) => o.nodeId === 2)).toHaveLength(2);
  });

  it('lanes are separate connections to the same node', async () => {
    const { c, opened } = cluster(() => metadata([]));
    await c.connect();
    const a = await c.connectionTo(1);
    const f = await c.connectionTo(1, 'fetch');
    expect(f).not.toBe(a);
    expect(await c.connectionTo(1, 'fetch')).toBe(f);
    expect(opened.filter((o) => o.nodeId === 1)).toHaveLength(2);
    expect(await c.anyConnection()).toBe(a);
    c.updateNodes([{ nodeId: 1, host: 'moved', port: 1, rack: null }]);
    expect([a, f].map((x) => x.connected)).toEqual([false, false]);
  });

  it('gives up after maxAttempts with the connection error', async () => {
    const { c } = cluster(() => metadata([]), { 'b2:9092': 99 });
    await c.connect();
    await expect(c.connectionTo(2)).rejects.toBeInstanceOf(KafkaConnectionError);
  });

  it('an unknown node id refreshes metadata, then fails clearly', async () => {
    const { c, opened } = cluster(() => metadata([]));
    await expect(c.connectionTo(7)).rejects.toThrow(/node 7: not in the cluster metadata/);
    expect(opened[0]!.calls.filter((x) => x === 'Metadata').length).toBeGreaterThan(1);
  });

  it('finds the coordinator, retrying COORDINATOR_NOT_AVAILABLE, and fails on authorization errors', async () => {
    let n = 0;
    const { c } = cluster((api, req) => {
      if (api === 'Metadata') return metadata([]);
      const key = (req as { coordinatorKeys: string[] }).coordinatorKeys[0]!;
      if (key === 'denied') {
        return {
          throttleTimeMs: 0,
          coordinators: [{ key, nodeId: -1, host: '', port: -1, errorCode: 30, errorMessage: null }],
        };
      }
      n++;
      const errorCode = n < 3 ? 15 : 0;
      return {
        throttleTimeMs: 0,
        coordinators: [{ key, nodeId: 2, host: 'b2', port: 9092, errorCode, errorMessage: null }],
      };
    });
    await c.connect();
    expect(await c.findGroupCoordinator('g')).toMatchObject({ nodeId: 2, host: 'b2', rack: 'r2' });
    expect(n).toBe(3);
    const denied = c.findGroupCoordinator('denied');
    await expect(denied).rejects.toBeInstanceOf(KafkaError);
    await expect(denied).rejects.toMatchObject({ kafkaName: 'GROUP_AUTHORIZATION_FAILED', retriable: false });
  });

  it('group configs go out as IncrementalAlterConfigs on resource type GROUP (32)', async () => {
    const seen: unknown[] = [];
    const { c } = cluster((api, req) => {
      seen.push([api, req]);
      return {
        throttleTimeMs: 0,
        responses: [{ errorCode: 0, errorMessage: null, resourceType: 32, resourceName: 'g' }],
      };
    });
    await c.alterGroupConfigs('g', {
      'share.auto.offset.reset': 'earliest',
      'share.record.lock.duration.ms': null,
    });
    expect(seen[0]).toEqual([
      'IncrementalAlterConfigs',
      {
        resources: [
          {
            resourceType: 32,
            resourceName: 'g',
            configs: [
              { name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' },
              { name: 'share.record.lock.duration.ms', configOperation: 1, value: null },
            ],
          },
        ],
        validateOnly: false,
      },
    ]);
  });

  it('NodeEndpoints from share responses add nodes; a moved node loses its old connection', async () => {
    const { c } = cluster(() => metadata([]));
    await c.connect();
    const old = (await c.connectionTo(2)) as FakeConnection;
    c.updateNodes([{ nodeId: 2, host: 'b2-new', port: 9093, rack: null }]);
    expect(old.connected).toBe(false);
    const fresh = await c.connectionTo(2);
    expect(fresh.address).toBe('b2-new:9093');
  });

  it('close() closes everything and refuses further use', async () => {
    const { c, opened } = cluster(() => metadata([]));
    await c.connect();
    await c.connectionTo(1);
    await c.close();
    expect(opened.every((o) => !o.connected)).toBe(true);
    expect(() => c.connectionTo(1)).toThrow(/closed/);
  });
});
