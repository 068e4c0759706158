// KIP-558 on two real `sharesink distributed` workers: every worker answers GET /connectors/{name}/topics
// alike from the status topic, with the topics the connector's tasks (on either worker) put records of;
// a reset through one worker empties it on both, and the tasks report a topic again at their next put
// of it; deleting the connector removes its topics, so a new one of the same name starts with none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, clusterSpec, startWorker, type DistributedWorkerRun } from './harness/distributed-workers.js';
import { createTopic, deleteTopics, kafkaClient, produce, uniqueName } from './harness/kafka.js';
import { until } from './harness/wait.js';

const spec = clusterSpec('dist-topics');
const t0 = uniqueName('dist-topics-a');
const t1 = uniqueName('dist-topics-b');
const name = uniqueName('kip558');
const workers: DistributedWorkerRun[] = [];

const topicsOn = async (url: string) => {
  const r = await api(url, 'GET', `/connectors/${name}/topics`);
  return r.status === 200 ? (r.json as Record<string, { topics: string[] }>)[name]!.topics : [`${r.status}`];
};
/** Both workers answer `expected`. */
const everywhere = (what: string, expected: string[]) =>
  until(
    what,
    () => Promise.all(workers.map((w) => topicsOn(w.url))),
    (all) => all.every((t) => JSON.stringify(t) === JSON.stringify(expected)),
    30_000,
  );
/** A write, retried while the cluster answers 409 (rebalancing). */
const write = (method: string, path: string, body?: unknown, url = workers[1]!.url) =>
  until(
    `${method} ${path}`,
    () => api(url, method, path, body),
    (r) => r.status !== 409,
    30_000,
  );

beforeAll(async () => {
  await createTopic(t0, { partitions: 2 });
  await createTopic(t1, { partitions: 2 });
  workers.push(await startWorker(spec, 'A'));
  workers.push(await startWorker(spec, 'B'));
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await deleteTopics([t0, t1, spec.configTopic, spec.statusTopic]).catch(() => undefined);
  const admin = kafkaClient().admin();
  await admin.connect();
  await admin.deleteGroups([`connect-${name}`]).catch(() => undefined);
  await admin.disconnect();
});

describe('active topics (KIP-558), distributed', () => {
  it('both workers answer the topics put from; a reset on one empties both and the next puts fill it again; a delete removes them', async () => {
    const config = {
      'connector.class': 'NoopSink',
      topics: `${t0},${t1}`,
      'tasks.max': '2',
      'consumer.override.auto.offset.reset': 'earliest',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    };
    const created = await write('POST', '/connectors', { name, config }, workers[0]!.url);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    await everywhere('no topic before any record', []);

    await produce(t0, ['a', 'b', 'c', 'd']);
    await everywhere(`[${t0}] on both workers`, [t0]);

    expect(await write('PUT', `/connectors/${name}/topics/reset`)).toEqual({ status: 202, json: undefined });
    // the worker that took the reset read it back before answering
    expect(await topicsOn(workers[1]!.url)).toEqual([]);
    await everywhere('[] on both after the reset', []);

    // the tasks forgot t0 with the reset: their next put of it reports it again
    await produce(t0, ['e', 'f', 'g', 'h']);
    await everywhere(`[${t0}] again`, [t0]);
    await produce(t1, ['i', 'j']);
    await everywhere(`[${t0}, ${t1}]`, [t0, t1].sort());

    expect((await write('DELETE', `/connectors/${name}`)).status).toBe(204);
    const again = await write('POST', '/connectors', { name, config, initial_state: 'STOPPED' });
    expect(again.status, JSON.stringify(again.json)).toBe(201);
    await everywhere('none for the new connector of the same name', []);
  });
});
