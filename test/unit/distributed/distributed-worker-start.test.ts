// A DistributedWorker starting while its REST server already listens (as `sharesink distributed` runs
// it): the broker parts are in-memory stand-ins, so the config topic's read and the group's join can be
// held open and the REST API asked what it answers meanwhile.
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileWorkerConfig } from '../../../src/config/compile-worker.js';
import { keyOf, valueOf, type ConfigRecord } from '../../../src/distributed/herder/config-records.js';
import { DistributedWorker } from '../../../src/distributed/herder/distributed-worker.js';
import type * as TopicLogModule from '../../../src/distributed/herder/topic-log.js';
import type { LogRecord, TopicLog } from '../../../src/distributed/herder/topic-log.js';
import { addDistributedRoutes } from '../../../src/rest/distributed-routes.js';
import { Router, type RestResponse } from '../../../src/rest/server/router.js';
import { callRoute } from '../rest/route-request.js';
import { FakeGroup, FakeMember, testDistributedConfig } from './fake-group.js';

const held = vi.hoisted(() => {
  let release: () => void = () => undefined;
  const state = {
    /** Holds the config topic's read until `open()`. */
    configRead: Promise.resolve(),
    hold(): void {
      state.configRead = new Promise<void>((r) => (release = r));
    },
    open: (): void => release(),
    logs: new Map<string, unknown>(),
  };
  return state;
});

vi.mock('../../../src/kafka/kafkajs/classic-consumer.js', () => ({
  createClassicKafka: () => ({
    admin: () => ({ connect: () => Promise.resolve(), disconnect: () => Promise.resolve() }),
  }),
}));
vi.mock('../../../src/distributed/herder/internal-topics.js', () => ({
  ensureInternalTopics: () => Promise.resolve(),
}));
vi.mock('../../../src/distributed/herder/topic-log.js', async (importOriginal) => {
  const real = await importOriginal<typeof TopicLogModule>();
  /** The topic's records in memory; the config topic's first read waits for `held.open()`. */
  class KafkaTopicLog implements TopicLog {
    readonly #topic: string;
    readonly #log: TopicLog;
    constructor(o: { topic: string }) {
      this.#topic = o.topic;
      let log = held.logs.get(o.topic) as InstanceType<typeof real.MemoryTopicLog> | undefined;
      if (log === undefined) held.logs.set(o.topic, (log = new real.MemoryTopicLog()));
      this.#log = log.reader();
    }
    async start(onRecords: (records: readonly LogRecord[]) => void): Promise<void> {
      if (this.#topic === 'configs') await held.configRead;
      return this.#log.start(onRecords);
    }
    readToEnd = (t: number) => this.#log.readToEnd(t);
    write = (k: string, v: string | null) => this.#log.write(k, v);
    close = () => this.#log.close();
  }
  return { ...real, KafkaTopicLog };
});

const distributed = testDistributedConfig({ configTopic: 'configs', statusTopic: 'status' });

/** The answer, or the error's status and message as the REST server would send them. */
async function call(
  router: Router,
  method: string,
  path: string,
): Promise<{ status: number; json?: unknown }> {
  return callRoute(router, method, path)
    .then((res) => res as Exclude<RestResponse, 'streaming'>)
    .catch((err: { status: number; message: string }) => ({
      status: err.status,
      json: { message: err.message },
    }));
}

/** A config topic that already holds connector `pg` (written by an earlier leader). */
async function topicWithPg(): Promise<void> {
  const { MemoryTopicLog } = await import('../../../src/distributed/herder/topic-log.js');
  const log = new MemoryTopicLog();
  const records: ConfigRecord[] = [
    { kind: 'connector', name: 'pg', config: { 'connector.class': 'NoopSink', topics: 't', name: 'pg' } },
    // STOPPED: the worker starts no task (no runtime reaching for a broker)
    { kind: 'target-state', name: 'pg', state: 'STOPPED' },
  ];
  for (const r of records) await log.write(keyOf(r), valueOf(r));
  held.logs.set('configs', log);
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  held.open();
  await stop?.();
  stop = undefined;
  held.logs.clear();
});

describe('a distributed worker while it starts', () => {
  it('answers 409 (still joining, reading the config topic) until it has read the config topic and joined, then the connectors', async () => {
    await topicWithPg();
    held.hold();
    const group = new FakeGroup();
    let joined: () => void = () => undefined;
    const joining = new Promise<void>((r) => (joined = r));
    const w = new DistributedWorker({
      worker: compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9092' }),
      distributed,
      logger: pino({ level: 'silent' }),
      member: (hooks, id) => {
        const m = new FakeMember(group, hooks, id.workerId);
        // the join waits too: with the config topic read, the worker is not yet in the group
        m.start = () => joining.then(() => group.join(m));
        return m;
      },
    });
    const router = new Router();
    addDistributedRoutes(router, w);
    const starting = w.start({ workerId: 'a:1', restUrl: 'http://a:1' });
    stop = () => w.stop();
    const answers = async () => [
      await call(router, 'GET', '/connectors'),
      await call(router, 'GET', '/connectors/pg'),
      await call(router, 'DELETE', '/connectors/pg'),
      await call(router, 'PUT', '/connectors/pg/pause'),
      await call(router, 'GET', '/connectors/pg/status'),
    ];
    const refused = {
      status: 409,
      json: {
        message: 'The worker is still joining the cluster (reading the config topic); try again in a moment',
      },
    };
    await vi.waitFor(() => expect(w.herder).toBeDefined());
    // reading the config topic: not `[]`, not "Connector pg not found"
    expect(await answers()).toEqual(Array.from({ length: 5 }, () => refused));
    expect((await call(router, 'GET', '/health')).status).toBe(503);
    held.open();
    await vi.waitFor(() => expect(w.herder.state.connector('pg')).toBeDefined());
    // read, not joined yet
    expect(await answers()).toEqual(Array.from({ length: 5 }, () => refused));
    joined();
    await starting;
    expect(await call(router, 'GET', '/connectors')).toEqual({ status: 200, json: ['pg'] });
    expect((await call(router, 'GET', '/connectors/pg')).status).toBe(200);
  });
});
