// The worker group member against a scripted coordinator (fake connections under the real KafkaCluster):
// the cases one broker cannot produce in the integration test — the coordinator moving (NOT_COORDINATOR),
// KIP-394's MEMBER_ID_REQUIRED, a coordinator that forgot the member (UNKNOWN_MEMBER_ID), a leader whose
// config read fails.
import { describe, expect, it } from 'vitest';
import type { BrokerConnection, BrokerConnectionOptions } from '../../../src/kafka/connection.js';
import type { ApiDefinition } from '../../../src/kafka/protocol/api.js';
import type { ApiVersionsResponse } from '../../../src/kafka/protocol/messages/api-versions.js';
import type { JoinGroupRequest } from '../../../src/kafka/protocol/messages/join-group.js';
import type { SyncGroupRequest } from '../../../src/kafka/protocol/messages/sync-group.js';
import { createWorkerGroupMember } from '../../../src/distributed/group/index.js';
import { decodeMemberMetadata } from '../../../src/distributed/group/wire-format.js';
import type {
  ClusterConfigSnapshot,
  TaskId,
  WorkerGroupHooks,
} from '../../../src/distributed/group-types.js';

type Handler = (api: string, request: unknown, nodeId: number) => unknown;

class FakeConnection implements BrokerConnection {
  readonly apiVersions = {
    errorCode: 0,
    apiKeys: [],
    finalizedFeatures: [],
  } as unknown as ApiVersionsResponse;
  connected = true;
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
    return this.handler(api.name, request, this.nodeId) as Res;
  }
  onClose(): () => void {
    return () => {};
  }
  async close(): Promise<void> {
    this.connected = false;
  }
}

const brokers = [
  { nodeId: 1, host: 'b1', port: 9092, rack: null },
  { nodeId: 2, host: 'b2', port: 9092, rack: null },
];

/** A one-member group coordinator on node `coordinatorNode`, with scripted first answers. */
function coordinator(script: { join?: number[]; heartbeat?: number[] }) {
  const log: string[] = [];
  const beats = { count: 0 };
  let coordinatorNode = 1;
  let generation = 0;
  let metadata: Buffer = Buffer.alloc(0);
  const handler: Handler = (api, req, nodeId) => {
    switch (api) {
      case 'Metadata':
        return { throttleTimeMs: 0, brokers, clusterId: 'c', controllerId: 1, topics: [], errorCode: 0 };
      case 'FindCoordinator': {
        log.push(`find→${coordinatorNode}`);
        const b = brokers[coordinatorNode - 1]!;
        return { throttleTimeMs: 0, coordinators: [{ key: 'g', ...b, errorCode: 0, errorMessage: null }] };
      }
      case 'JoinGroup': {
        const r = req as JoinGroupRequest;
        log.push(`join@${nodeId}(${r.memberId || '-'})`);
        if (nodeId !== coordinatorNode) return joinError(16, '');
        const scripted = script.join?.shift();
        if (scripted === 16) {
          coordinatorNode = 2; // the coordinator moved
          return joinError(16, '');
        }
        if (r.memberId === '') return joinError(79, 'm-1');
        metadata = Buffer.from(r.protocols[0]!.metadata);
        generation++;
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          generationId: generation,
          protocolType: 'sharesink',
          protocolName: r.protocols[0]!.name,
          leader: r.memberId,
          skipAssignment: false,
          memberId: r.memberId,
          members: [{ memberId: r.memberId, groupInstanceId: null, metadata }],
        };
      }
      case 'SyncGroup': {
        const r = req as SyncGroupRequest;
        log.push(`sync@${nodeId}(gen ${r.generationId})`);
        const mine = r.assignments.find((a) => a.memberId === r.memberId)!;
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          protocolType: null,
          protocolName: null,
          assignment: Buffer.from(mine.assignment),
        };
      }
      case 'Heartbeat': {
        beats.count++;
        const code = script.heartbeat?.shift() ?? 0;
        if (code !== 0) log.push(`heartbeat→${code}`);
        return { throttleTimeMs: 0, errorCode: code };
      }
      case 'LeaveGroup':
        log.push('leave');
        return { throttleTimeMs: 0, errorCode: 0, members: [] };
      default:
        throw new Error(`unexpected ${api}`);
    }
  };
  return { handler, log, beats, lastMetadata: () => metadata };
}

function joinError(errorCode: number, memberId: string) {
  return {
    throttleTimeMs: 0,
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

function hooks(snapshot: () => Promise<ClusterConfigSnapshot>) {
  const events: string[] = [];
  const h: WorkerGroupHooks = {
    metadata: () => ({ workerId: 'w1:8083', restUrl: 'http://w1:8083', configOffset: 7n }),
    configSnapshot: (min) => {
      events.push(`snapshot≥${min}`);
      return snapshot();
    },
    revoke: (c, t: readonly TaskId[]) => {
      events.push(`revoke ${[...c, ...t.map((x) => `${x.connector}-${x.task}`)].join(',')}`);
      return Promise.resolve();
    },
    assigned: (a) =>
      events.push(
        `assigned ${[...a.connectors, ...a.tasks.map((x) => `${x.connector}-${x.task}`)].join(',')}`,
      ),
  };
  return { h, events };
}

const settings = {
  groupId: 'g',
  sessionTimeoutMs: 3000,
  rebalanceTimeoutMs: 5000,
  heartbeatIntervalMs: 20,
  scheduledRebalanceMaxDelayMs: 0,
  retryBackoffMs: 1,
  retryBackoffMaxMs: 5,
};

function open(handler: Handler) {
  return async (o: BrokerConnectionOptions) => new FakeConnection(o.nodeId, o.host, o.port, handler);
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

describe('worker group member against a scripted coordinator', () => {
  it('follows a moved coordinator, joins with the member id KIP-394 hands out, and leads a one-member group', async () => {
    const c = coordinator({ join: [16] });
    const { h, events } = hooks(() =>
      Promise.resolve({ offset: 7n, connectors: [{ name: 'orders', tasks: 2 }] }),
    );
    const member = createWorkerGroupMember(
      { ...settings, kafka: { brokers: ['boot:1'], openConnection: open(c.handler) } },
      h,
    );
    await member.start();
    expect(c.log).toEqual(['find→1', 'join@1(-)', 'find→2', 'join@2(-)', 'join@2(m-1)', 'sync@2(gen 1)']);
    expect(events).toEqual(['snapshot≥7', 'assigned orders,orders-0,orders-1']);
    expect(member.view()).toMatchObject({ memberId: 'm-1', generation: 1, isLeader: true, state: 'stable' });
    expect(member.view().members).toEqual([
      { memberId: 'm-1', workerId: 'w1:8083', restUrl: 'http://w1:8083', configOffset: 7n },
    ]);
    await member.stop();
    expect(c.log.at(-1)).toBe('leave');
    expect(events.at(-1)).toBe('revoke orders,orders-0,orders-1');
    expect(member.view().state).toBe('stopped');
  });

  it('UNKNOWN_MEMBER_ID from a heartbeat: stops everything, joins afresh, and reports it runs nothing', async () => {
    const c = coordinator({ heartbeat: [0, 25] });
    const { h, events } = hooks(() =>
      Promise.resolve({ offset: 7n, connectors: [{ name: 'orders', tasks: 1 }] }),
    );
    const member = createWorkerGroupMember(
      { ...settings, kafka: { brokers: ['boot:1'], openConnection: open(c.handler) } },
      h,
    );
    await member.start();
    await until(() => member.view().generation === 2);
    expect(c.log.filter((x) => x.startsWith('join') || x.startsWith('heartbeat'))).toEqual([
      'join@1(-)',
      'join@1(m-1)',
      'heartbeat→25',
      'join@1(-)', // the coordinator forgot us: a new member id
      'join@1(m-1)',
    ]);
    expect(events).toEqual([
      'snapshot≥7',
      'assigned orders,orders-0',
      'revoke orders,orders-0',
      'snapshot≥7',
      'assigned orders,orders-0',
    ]);
    // what it told the leader when it rejoined: nothing runs any more
    const meta = decodeMemberMetadata(c.lastMetadata(), 'm-1');
    expect(meta.tasks).toEqual([]);
    await member.stop();
  });

  it('the leader cannot read the config: every member keeps what it runs, and the round is tried again', async () => {
    const c = coordinator({});
    let fail = false;
    const { h, events } = hooks(() =>
      fail
        ? Promise.reject(new Error('config topic behind'))
        : Promise.resolve({ offset: 7n, connectors: [{ name: 'x', tasks: 1 }] }),
    );
    const member = createWorkerGroupMember(
      { ...settings, kafka: { brokers: ['boot:1'], openConnection: open(c.handler) } },
      h,
    );
    await member.start();
    fail = true;
    member.requestRejoin('config changed');
    await until(() => (member.view().generation ?? 0) >= 3); // failed rounds, retried after retryBackoffMaxMs
    expect(member.view().assignment?.tasks).toEqual([{ connector: 'x', task: 0 }]);
    fail = false;
    const failedAt = member.view().generation;
    await until(() => member.view().generation > failedAt);
    await new Promise((r) => setTimeout(r, 50)); // a retry already scheduled by a round in flight
    const settled = member.view().generation;
    await new Promise((r) => setTimeout(r, 100));
    expect(member.view().generation).toBe(settled); // once the config reads, no more retries
    expect(events.filter((e) => e.startsWith('revoke'))).toEqual([]);
    await member.stop();
  });

  it('keeps heartbeating while stop() waits for the work to stop, then leaves', async () => {
    const c = coordinator({});
    const { h } = hooks(() => Promise.resolve({ offset: 7n, connectors: [{ name: 'x', tasks: 1 }] }));
    let beatsWhenStopping = 0;
    const slow: WorkerGroupHooks = {
      ...h,
      revoke: async () => {
        beatsWhenStopping = c.beats.count;
        await new Promise((r) => setTimeout(r, 150)); // a slow sink stopping: several heartbeat intervals
      },
    };
    const member = createWorkerGroupMember(
      { ...settings, kafka: { brokers: ['boot:1'], openConnection: open(c.handler) } },
      slow,
    );
    await member.start();
    await member.stop();
    expect(c.beats.count).toBeGreaterThan(beatsWhenStopping + 2);
    expect(c.log.at(-1)).toBe('leave');
  });
});
