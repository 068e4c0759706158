// share.member.scope on a real broker: by default a connector's tasks on one worker read through one
// share-group member (the group lists one member, every task gets work, every record is put, a task
// restart keeps the member); with `task` the group lists one member per task, as Kafka Connect runs them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { KafkaCluster } from '../../src/kafka/cluster.js';
import { shareGroupMembers } from '../../src/offsets/share-offsets.js';
import { readEvents } from '../fixtures/connectors/shared.js';
import { createTopic, deleteTopics, produce, REPO_ROOT, testBrokers, uniqueTopic } from './harness/kafka.js';
import { testLogger } from './harness/share.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/connectors/waiting.ts');
const RECORDS = 3000;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-member-'));
const topics: string[] = [];
let cluster: KafkaCluster;

beforeAll(() => {
  cluster = new KafkaCluster({ brokers: testBrokers().split(','), clientId: 'member-scope-test' });
});

afterAll(async () => {
  await cluster?.close();
  if (topics.length > 0) await deleteTopics(topics);
});

async function run(scope: 'connector' | 'task' | undefined) {
  const topic = uniqueTopic(`member-${scope ?? 'default'}`);
  topics.push(topic);
  await createTopic(topic, { partitions: 2 });
  // producer batches of 100: a ShareFetch answers with whole batches, so this is what one fetch can carry
  for (let from = 0; from < RECORDS; from += 100)
    await produce(
      topic,
      Array.from({ length: 100 }, (_, i) => ({ key: null, value: String(from + i) })),
    );
  const events = path.join(dir, `${topic}.jsonl`);
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'client.id': 'scope-test',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  const props: Record<string, string> = {
    name: topic,
    'connector.class': FIXTURE,
    topics: topic,
    'tasks.max': '3',
    'consumer.override.group.protocol': 'share',
    'consumer.override.max.poll.records': '100',
    'wait.ms': '20',
    'events.file': events,
  };
  if (scope !== undefined) props['share.member.scope'] = scope;
  const connector = compileConnectorConfig(props, worker);
  const w = new Worker({ worker, logger: testLogger, connectors: [connector] });
  const written = () =>
    readEvents(events)
      .filter((e) => e.event === 'end')
      .reduce((n, e) => n + (e['count'] as number), 0);
  await w.start();
  try {
    const tasks = () => w.connector(topic)!.taskMetrics();
    const accepted = () => tasks().reduce((n, t) => n + t.counters.recordsAccepted, 0);
    const deadline = Date.now() + 60_000;
    while (accepted() < RECORDS && Date.now() < deadline && w.taskFailures.length === 0)
      await new Promise((r) => setTimeout(r, 100));
    const members = await shareGroupMembers(cluster, connector.groupId);
    const perTask = tasks().map((t) => t.counters.recordsPut);
    const consumers = tasks().map((t) => t.consumer?.recordsAccepted ?? 0);
    return { w, topic, members, perTask, consumers, written: written() };
  } catch (err) {
    await w.stop();
    throw err;
  }
}

describe('share.member.scope', () => {
  it('default (connector): one member for the three tasks; each task puts, every record is put once at least', async () => {
    const { w, topic, members, perTask, consumers, written } = await run(undefined);
    try {
      expect(w.taskFailures).toEqual([]);
      expect(written).toBeGreaterThanOrEqual(RECORDS);
      expect(members.map((m) => m.clientId)).toEqual([`scope-test-${topic}`]);
      // every task got records from the one member, and the tasks' share counters add up to the member's
      expect(
        perTask.every((n) => n > 0),
        `put per task: ${perTask.join(', ')}`,
      ).toBe(true);
      expect(consumers.reduce((a, b) => a + b, 0)).toBe(RECORDS);
      // a task restarted by the operator leases the same member: the group still lists one, the same one
      await w.connector(topic)!.restartTask(1);
      await produce(topic, [{ key: null, value: 'after-restart' }]);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const now = readEvents(path.join(dir, `${topic}.jsonl`)).filter((e) => e.event === 'end');
        if (now.reduce((n, e) => n + (e['count'] as number), 0) > written) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await shareGroupMembers(cluster, `connect-${topic}`)).map((m) => m.memberId)).toEqual(
        members.map((m) => m.memberId),
      );
    } finally {
      await w.stop();
    }
    // the last task to stop took the member out of the group
    expect(await shareGroupMembers(cluster, `connect-${topic}`)).toEqual([]);
  });

  it('task: one member per task, as Kafka Connect runs share consumers', async () => {
    const { w, topic, members, written } = await run('task');
    try {
      expect(w.taskFailures).toEqual([]);
      expect(written).toBeGreaterThanOrEqual(RECORDS);
      expect(members.map((m) => m.clientId).sort()).toEqual([0, 1, 2].map((i) => `scope-test-${topic}-${i}`));
    } finally {
      await w.stop();
    }
  });
});
