// HttpSink run by the Worker from a real topic, in share mode and in classic mode, into a real HTTP
// server that answers the first requests with 503 (and, in share mode, one request with 400). Every
// record must arrive, and afterwards the share group has nothing left to deliver (classic: the
// group's committed offsets are at the end).
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import {
  createTopic,
  deleteTopics,
  committedAndEndOffsets,
  produce,
  testBrokers,
  uniqueTopic,
} from './harness/kafka.js';
import { pollFor, shareConsumers, testLogger } from './harness/share.js';
import { startHttpServer, type TestHttpServer } from './harness/http-server.js';

const RECORDS = 600;
const PARTITIONS = 3;
const topics: string[] = [];
const consumers = shareConsumers({ clientId: 'sink-http-check' });
const servers: TestHttpServer[] = [];

afterAll(async () => {
  await consumers.closeAll();
  await Promise.all(servers.map((s) => s.close()));
  if (topics.length > 0) await deleteTopics(topics);
});

interface Posted {
  partition: number;
  offset: number;
  value: { n: number };
  deliveryCount: number | null;
}

/** A topic with RECORDS JSON records spread over its partitions. */
async function filledTopic(prefix: string): Promise<string> {
  const topic = uniqueTopic(prefix);
  topics.push(topic);
  await createTopic(topic, { partitions: PARTITIONS });
  await produce(
    topic,
    Array.from({ length: RECORDS }, (_, n) => ({ key: `k${n}`, value: JSON.stringify({ n }) })),
  );
  return topic;
}

/**
 * An endpoint that answers the first `failFirst` requests with 503, refuses with 400 every request
 * holding a record whose value is `refuse`, and collects the records of the others.
 */
async function endpoint(
  failFirst: number,
  refuse?: number,
): Promise<{ server: TestHttpServer; written: Map<string, Posted>; refused: Map<string, Posted> }> {
  const written = new Map<string, Posted>();
  const refused = new Map<string, Posted>();
  const server = await startHttpServer();
  servers.push(server);
  server.respond((req, n) => {
    if (n < failFirst) return { status: 503, headers: { 'retry-after': '1' } };
    const posted = JSON.parse(req.body.toString('utf8')) as Posted[];
    const bad = posted.some((p) => p.value.n === refuse);
    for (const p of posted) (bad ? refused : written).set(`${p.partition}:${p.offset}`, p);
    return bad ? { status: 400, body: 'refused' } : { status: 200 };
  });
  return { server, written, refused };
}

async function runUntil(worker: Worker, done: () => boolean, timeoutMs = 90_000): Promise<void> {
  await worker.start();
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline && worker.taskFailures.length === 0) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await worker.stop();
}

function workerConfig() {
  return compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'false',
    'pool.threads': '2',
  });
}

/** Every record of the topic arrived: written, or (share mode) refused; none both. */
function expectEveryRecord(written: Map<string, Posted>, refused = new Map<string, Posted>()): void {
  expect([...written.keys()].filter((k) => refused.has(k))).toEqual([]);
  expect(written.size + refused.size).toBe(RECORDS);
  const values = new Set([...written.values(), ...refused.values()].map((p) => p.value.n));
  expect(values.size).toBe(RECORDS);
}

describe('HttpSink through the Worker', () => {
  it('share mode: every record reaches the endpoint through 503s, a 400 rejects its request, the group has nothing left', async () => {
    const topic = await filledTopic('sink-http-share');
    const { server, written, refused } = await endpoint(3, 7);
    const name = `${topic}-http`;
    const worker = workerConfig();
    const w = new Worker({
      worker,
      logger: testLogger,
      connectors: [
        compileConnectorConfig(
          {
            name,
            'connector.class': 'HttpSink',
            topics: topic,
            'tasks.max': '3',
            'consumer.override.group.protocol': 'share',
            'share.group.share.auto.offset.reset': 'earliest',
            'http.url': `${server.url}/ingest/\${topic}`,
            'request.body.format': 'json_records',
            'batch.max.size': '50',
            'max.in.flight.requests': '2',
            'http.idempotency.header': 'Idempotency-Key',
          },
          worker,
        ),
      ],
    });
    await runUntil(w, () => written.size + refused.size >= RECORDS);
    expect(w.taskFailures).toEqual([]);
    expectEveryRecord(written, refused);
    expect(refused.size).toBeGreaterThan(0);
    expect([...written.values()].every((p) => typeof p.deliveryCount === 'number')).toBe(true);
    expect(server.requests.every((r) => r.path === `/ingest/${topic}`)).toBe(true);
    expect(server.requests.every((r) => typeof r.headers['idempotency-key'] === 'string')).toBe(true);
    const [summary] = w.summary().connectors;
    expect(summary!.mode).toBe('share');
    // the records of the refused request were REJECTed, all others ACCEPTed
    expect(summary!.counters).toMatchObject({
      recordsAccepted: RECORDS - refused.size,
      recordsRejected: refused.size,
    });

    // every record was acknowledged: a new member of the same share group gets nothing
    const check = consumers.make(summary!.groupId);
    await check.subscribe([topic]);
    expect(await pollFor(check, 5000)).toEqual([]);
  });

  it('classic mode: every record reaches the endpoint through a 503, and the offsets are committed to the end', async () => {
    const topic = await filledTopic('sink-http-classic');
    const { server, written } = await endpoint(1);
    const worker = workerConfig();
    const config = compileConnectorConfig(
      {
        name: `${topic}-http`,
        'connector.class': 'HttpSinkConnector',
        topics: topic,
        'tasks.max': '2',
        'consumer.override.auto.offset.reset': 'earliest',
        'http.url': `${server.url}/ingest`,
        'request.body.format': 'json_records',
        'batch.max.size': '100',
      },
      worker,
    );
    const w = new Worker({ worker, logger: testLogger, connectors: [config] });
    await runUntil(w, () => written.size >= RECORDS);
    expect(w.taskFailures).toEqual([]);
    expectEveryRecord(written);
    expect([...written.values()].every((p) => p.deliveryCount === null)).toBe(true);
    expect(w.summary().connectors[0]!.mode).toBe('classic');

    const { committed, end } = await committedAndEndOffsets(config.groupId, topic);
    expect(committed).toEqual(end);
  });
});
