// Switching a Connect sink to share mode keeps Connect's start position: records already in the topic
// are written with no setting beyond consumer.override.group.protocol=share (a new share group would
// otherwise start at the broker default, latest). An explicit `latest` is honoured, and a start
// position someone else set on the group is left alone. Each start logs one line saying which applied.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { readGroupStartConfig } from '../../src/actors/share-start-position.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { KafkaCluster } from '../../src/kafka/cluster.js';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  produce,
  setGroupConfig,
  testBrokers,
  uniqueTopic,
} from './harness/kafka.js';
import { lines, sleep, until } from './harness/wait.js';

const BACKLOG = 200;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-start-'));
const topics: string[] = [];
const cluster = new KafkaCluster({ brokers: [testBrokers()], clientId: 'start-position-check' });

afterAll(async () => {
  await cluster.close();
  if (topics.length > 0) await deleteTopics(topics);
});

/** A topic with `BACKLOG` records `old-<n>` in it before any connector starts. */
async function topicWithBacklog(prefix: string): Promise<string> {
  const topic = uniqueTopic(prefix);
  topics.push(topic);
  await createTopic(topic, { partitions: 2 });
  await produce(
    topic,
    Array.from({ length: BACKLOG }, (_, n) => `old-${n}`),
  );
  return topic;
}

/** The info-level lines a worker logs, parsed, with the start-position ones picked out. */
function logCapture() {
  const all: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        all.push(JSON.parse(line) as (typeof all)[number]);
      done();
    },
  });
  const startLines = () => all.filter((l) => 'share.auto.offset.reset' in l);
  return { logger: pino({ level: 'info' }, stream), startLines };
}

/** A worker with a FileStreamSink connector in share mode on `topic`; `extra` adds connector settings. */
function sinkWorker(topic: string, extra: Record<string, string> = {}) {
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'pool.threads': '1',
  });
  const file = path.join(dir, `${topic}.txt`);
  const config = compileConnectorConfig(
    {
      name: `${topic}-file`,
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      file,
      topics: topic,
      'tasks.max': '2',
      'consumer.override.group.protocol': 'share',
      ...extra,
    },
    worker,
  );
  const { logger, startLines } = logCapture();
  const w = new Worker({ worker, logger, connectors: [config] });
  return { w, file, groupId: config.groupId, startLines };
}

async function startSink(topic: string, extra: Record<string, string> = {}) {
  const sink = sinkWorker(topic, extra);
  await sink.w.start();
  return sink;
}

/**
 * Produces a `new-<n>` record every 500 ms until one reaches the file: the group starts a partition at
 * its first fetch, so records produced before that may count as backlog under `latest`.
 */
async function produceUntilNewWritten(topic: string, file: string): Promise<void> {
  let n = 0;
  await until(
    'a record produced after the start to be written',
    async () => {
      await produce(topic, [`new-${n++}`]);
      await sleep(300);
      return lines(file).some((l) => l.startsWith('new-'));
    },
    (written) => written,
    60_000,
  );
}

describe('share mode start position', () => {
  it('with no setting, a new share group writes every record already in the topic', async () => {
    const topic = await topicWithBacklog('start-default');
    const { w, file, groupId, startLines } = await startSink(topic);
    try {
      await until(
        'the backlog in the file',
        () => lines(file).length,
        (n) => n >= BACKLOG,
        90_000,
      );
    } finally {
      await w.stop();
    }
    expect(w.taskFailures).toEqual([]);
    expect(new Set(lines(file))).toEqual(new Set(Array.from({ length: BACKLOG }, (_, n) => `old-${n}`)));
    expect(startLines().map((l) => [l.level, l.msg])).toEqual([
      [
        30,
        `share group ${groupId} is new: set share.auto.offset.reset=earliest, as Connect starts sink consumers at the earliest offset (records already in the topic are written); set consumer.override.auto.offset.reset=latest to start at the end`,
      ],
    ]);
    expect(await readGroupStartConfig(cluster, groupId)).toEqual({ value: 'earliest', setOnGroup: true });
  });

  it('an explicit latest is honoured: the backlog is skipped, new records are written', async () => {
    const topic = await topicWithBacklog('start-latest');
    const { w, file, groupId, startLines } = await startSink(topic, {
      'consumer.override.auto.offset.reset': 'latest',
    });
    try {
      await produceUntilNewWritten(topic, file);
    } finally {
      await w.stop();
    }
    expect(w.taskFailures).toEqual([]);
    expect(lines(file).filter((l) => l.startsWith('old-'))).toEqual([]);
    expect(startLines().map((l) => l.msg)).toEqual([
      `share group ${groupId} is new: share.auto.offset.reset=latest was written with the connector's group configs, as consumer.override.auto.offset.reset=latest asks (records already in the topic are skipped, only new ones are written)`,
    ]);
    // the fields say what the text says: written at this start, by the group-config step
    expect(startLines()[0]).toMatchObject({
      written: true,
      writtenBy: 'group configs',
      chosenBy: 'consumer.override.auto.offset.reset',
    });
    expect(await readGroupStartConfig(cluster, groupId)).toEqual({ value: 'latest', setOnGroup: true });
  });

  it('a group id that is a consumer group (a classic-mode run) gets a WARN saying what to do', async () => {
    const topic = await topicWithBacklog('start-classic');
    const groupId = `connect-${topic}-file`;
    const admin = kafkaClient('start-position-classic').admin();
    await admin.connect();
    try {
      await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '0' }] });
    } finally {
      await admin.disconnect();
    }
    const { w, startLines } = sinkWorker(topic);
    // the tasks' heartbeats fail too; the start-position line is what says what to do about it
    await expect(w.start()).rejects.toThrow('is not a share group');
    await w.stop();
    expect(startLines().map((l) => [l.level, l.msg])).toEqual([
      [
        40,
        `group ${groupId} is not a share group (broker says: Group ${groupId} is not a share group.): the broker keeps one group per id, so a connector moved to share mode needs a group of its own; set consumer.override.group.id to a new name, or delete the old group (kafka-consumer-groups.sh --bootstrap-server … --delete --group ${groupId}) if it is no longer needed`,
      ],
    ]);
  });

  it('a start position someone else set on the group is left alone', async () => {
    const topic = await topicWithBacklog('start-theirs');
    const groupId = `connect-${topic}-file`;
    // an operator chose latest for this group before sharesink ever ran it
    await setGroupConfig(groupId, { 'share.auto.offset.reset': 'latest' });
    const { w, file, startLines } = await startSink(topic);
    try {
      await produceUntilNewWritten(topic, file);
    } finally {
      await w.stop();
    }
    expect(w.taskFailures).toEqual([]);
    expect(await readGroupStartConfig(cluster, groupId)).toEqual({ value: 'latest', setOnGroup: true });
    expect(lines(file).filter((l) => l.startsWith('old-'))).toEqual([]);
    expect(startLines().map((l) => l.msg)).toEqual([
      `share group ${groupId} has share.auto.offset.reset=latest set on the group (by an earlier start, or by hand): left as is, as sharesink never overwrites it, so partitions the group has not read yet start at the latest offset; set consumer.override.auto.offset.reset=earliest to start at the beginning`,
    ]);
  });
});
