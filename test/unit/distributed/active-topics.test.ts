// Distributed active topics (KIP-558): one status-topic record per (connector, topic), written once by
// the first worker that puts records of it, read by every worker; a reset or a deletion removes them and
// every worker's runtime forgets them, so its next put of the topic reports it again.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectState } from '../../../src/actors/connector-runtime.js';
import { compileWorkerConfig } from '../../../src/config/compile-worker.js';
import type { ConnectorConfig } from '../../../src/config/types.js';
import { DistributedHerder } from '../../../src/distributed/herder/herder.js';
import { LeaderWrites } from '../../../src/distributed/herder/leader-writes.js';
import type { LocalRuntime } from '../../../src/distributed/herder/local-connectors.js';
import { StatusStore } from '../../../src/distributed/herder/status-store.js';
import { MemoryTopicLog } from '../../../src/distributed/herder/topic-log.js';
import { parseTopicKey, topicStatusKey } from '../../../src/distributed/herder/topic-status.js';
import { capturingLogger } from '../cli/capturing-logger.js';
import { FakeGroup, FakeMember, testDistributedConfig } from './fake-group.js';

const logger = pino({ level: 'silent' });

class TopicsRuntime implements LocalRuntime {
  state: ConnectState = 'RUNNING';
  readonly error = undefined;
  readonly forgotten: string[] = [];
  constructor(
    readonly config: ConnectorConfig,
    readonly ids: readonly number[],
  ) {}
  start = () => Promise.resolve();
  stop = () => Promise.resolve();
  pause = () => Promise.resolve();
  resume = () => Promise.resolve();
  restart = () => ({ connector: false, tasks: [] });
  restartTask = () => Promise.resolve();
  taskStates = () => this.ids.map((id) => ({ id, state: this.state, trace: undefined }));
  forgetActiveTopic(topic: string) {
    this.forgotten.push(topic);
  }
}

describe('status-topic records of active topics', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });

  it("use Connect's key, split at the first :connector- whatever the connector is called", () => {
    expect(topicStatusKey('orders-db', 'orders')).toBe('status-topic-orders:connector-orders-db');
    expect(parseTopicKey(topicStatusKey('a:connector-b', 'orders.v1'))).toEqual({
      topic: 'orders.v1',
      connector: 'a:connector-b',
    });
    for (const key of ['status-connector-x', 'status-topic-:connector-x', 'status-topic-t:connector-'])
      expect(parseTopicKey(key)).toBeUndefined();
  });

  it('every store sees a topic written once; the first record stands; tombstones remove it and are heard', async () => {
    const log = new MemoryTopicLog();
    const { logger: warnings, lines } = capturingLogger('warn');
    const a = new StatusStore(log.reader(), warnings);
    const b = new StatusStore(log.reader(), warnings);
    await a.start();
    await b.start();
    const heard: string[] = [];
    b.onTopicRemoved((connector, topic) => heard.push(`${connector}/${topic}`));
    await a.putTopic({ connector: 'pg', topic: 'zeta', task: 1, discoverTimestamp: 5 });
    await b.putTopic({ connector: 'pg', topic: 'alpha', task: 0, discoverTimestamp: 6 });
    await b.putTopic({ connector: 'other', topic: 'alpha', task: 0, discoverTimestamp: 7 });
    expect(a.topics('pg')).toEqual(['alpha', 'zeta']);
    expect(b.topics('pg')).toEqual(['alpha', 'zeta']);
    expect(b.hasTopic('pg', 'zeta')).toBe(true);
    // a connector's statuses are untouched by its topics, and a value not understood is skipped
    await log.write(topicStatusKey('pg', 'bad'), '{"v":99}');
    expect(a.topics('pg')).toEqual(['alpha', 'zeta']);
    expect(a.connector('pg')).toBeUndefined();
    expect(lines.map((l) => l.msg)).toContain('status record not understood; skipped');
    await a.removeTopics('pg');
    expect(a.topics('pg')).toEqual([]);
    expect(b.topics('pg')).toEqual([]);
    expect(b.topics('other')).toEqual(['alpha']);
    expect(heard.sort()).toEqual(['pg/alpha', 'pg/zeta']);
  });

  it("the herder writes a topic the first time a runtime reports it, not again; a reset read back makes this worker's runtime forget it; a deletion removes them", async () => {
    const configLog = new MemoryTopicLog();
    const statusLog = new MemoryTopicLog();
    const status = new StatusStore(statusLog.reader(), logger);
    const runtimes: TopicsRuntime[] = [];
    const herder = new DistributedHerder({
      worker: compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9092' }),
      distributed: testDistributedConfig(),
      configLog: configLog.reader(),
      status,
      workerId: 'a:1',
      restUrl: 'http://a:1',
      logger,
      runtimes: (config, ids) => {
        const r = new TopicsRuntime(config, ids);
        runtimes.push(r);
        return r;
      },
      statusIntervalMs: 60_000,
    });
    const group = new FakeGroup();
    herder.attach(new FakeMember(group, herder, 'a:1'));
    const writes = new LeaderWrites(herder, (c) => Promise.resolve([{ ...c.raw }]), logger);
    await herder.start();
    stops.push(() => herder.stop());
    await writes.putConnector(
      'pg',
      { name: 'pg', 'connector.class': 'NoopSink', topics: 'orders,audit' },
      true,
    );
    for (let i = 0; i < 3; i++) {
      await group.rebalance();
      await herder.reconcile();
    }
    expect(runtimes).toHaveLength(1);

    const topicRecords = () => statusLog.records.filter((r) => r.key.startsWith('status-topic-'));
    herder.recordActiveTopic('pg', 'orders', 0);
    await Promise.resolve();
    herder.recordActiveTopic('pg', 'orders', 1); // another runtime's first put of it: already there
    herder.recordActiveTopic('gone', 'orders', 0); // a connector deleted meanwhile
    expect(topicRecords().map((r) => r.key)).toEqual(['status-topic-orders:connector-pg']);
    expect(JSON.parse(topicRecords()[0]!.value!)).toMatchObject({
      topic: 'orders',
      connector: 'pg',
      task: 0,
    });

    await status.removeTopics('pg');
    expect(runtimes[0]!.forgotten).toEqual(['orders']);
    expect(status.topics('pg')).toEqual([]);

    herder.recordActiveTopic('pg', 'audit', 0);
    await Promise.resolve();
    expect(status.topics('pg')).toEqual(['audit']);
    await writes.deleteConnector('pg');
    expect(status.topics('pg')).toEqual([]);
    expect(topicRecords().at(-1)).toMatchObject({ key: 'status-topic-audit:connector-pg', value: null });

    // a task of the deleted connector still finishing its puts wrote a topic after the removals (its
    // worker had not read the deletion yet): a connector created again under the name starts empty
    await status.putTopic({ connector: 'pg', topic: 'late', task: 0, discoverTimestamp: 1 });
    expect(status.topics('pg')).toEqual(['late']);
    await writes.putConnector('pg', { name: 'pg', 'connector.class': 'NoopSink', topics: 'orders' }, true);
    expect(status.topics('pg')).toEqual([]);
  });
});
