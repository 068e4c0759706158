// Single Message Transforms through the Worker, from a real topic into FileStreamSink, in share mode and
// in classic mode: Filter (under HasHeaderKey and RecordIsTombstone) drops records, RegexRouter renames
// the topic the sink sees, InsertField and MaskField rewrite the rest, a Cast that cannot parse one
// record makes it errant. What reaches the
// file is exactly the kept records, transformed; dropped records count as done: in share mode they are
// ACCEPTed and never come back once the lock duration has passed, in classic mode their offsets are
// committed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import type { ConfigError } from '../../src/errors.js';
import {
  REPO_ROOT,
  createTopic,
  deleteTopics,
  committedAndEndOffsets,
  produce,
  testBrokers,
  uniqueTopic,
} from './harness/kafka.js';
import { pollFor, readFromBeginning, shareConsumers, sleep, testLogger } from './harness/share.js';
import { lines } from './harness/wait.js';

const RECORDS = 300;
const PARTITIONS = 3;
const LOCK_MS = 2000;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-smt-'));
const topics: string[] = [];
const consumers = shareConsumers({ clientId: 'smt-check' });

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

/** n % 10 === 3: header `skip`; n % 10 === 7: tombstone; n === 150: a value Cast cannot read. */
const skipped = (n: number) => n % 10 === 3;
const tombstone = (n: number) => n % 10 === 7;
const ERRANT = 150;
const KEPT = Array.from({ length: RECORDS }, (_, n) => n).filter(
  (n) => !skipped(n) && !tombstone(n) && n !== ERRANT,
);
const DROPPED = RECORDS - KEPT.length - 1;

async function filledTopic(prefix: string): Promise<string> {
  const topic = uniqueTopic(prefix);
  topics.push(topic);
  await createTopic(topic, { partitions: PARTITIONS });
  await produce(
    topic,
    Array.from({ length: RECORDS }, (_, n) => ({
      key: `k${n}`,
      value: tombstone(n)
        ? null
        : JSON.stringify({ n: n === ERRANT ? 'not a number' : String(n), card: `4111-${n}` }),
      headers: skipped(n) ? { skip: 'yes' } : {},
    })),
  );
  return topic;
}

function connectorProps(topic: string, file: string): Record<string, string> {
  return {
    name: `${topic}-file`,
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
    file,
    topics: topic,
    'errors.tolerance': 'all',
    transforms: 'dropSkipped,dropTombstones,cast,route,insert,mask',
    'transforms.dropSkipped.type': 'org.apache.kafka.connect.transforms.Filter',
    'transforms.dropSkipped.predicate': 'hasSkip',
    'transforms.dropTombstones.type': 'org.apache.kafka.connect.transforms.Filter',
    'transforms.dropTombstones.predicate': 'isTombstone',
    'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
    'transforms.cast.spec': 'n:int32',
    'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
    'transforms.route.regex': '(.*)',
    'transforms.route.replacement': '$1-routed',
    'transforms.insert.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
    'transforms.insert.topic.field': 'from',
    'transforms.mask.type': 'org.apache.kafka.connect.transforms.MaskField$Value',
    'transforms.mask.fields': 'card',
    predicates: 'hasSkip,isTombstone',
    'predicates.hasSkip.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
    'predicates.hasSkip.name': 'skip',
    'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
  };
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

async function runUntil(worker: Worker, done: () => boolean, timeoutMs = 90_000): Promise<void> {
  await worker.start();
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline && worker.taskFailures.length === 0) await sleep(200);
  // let the last acknowledgements and commits go out
  await sleep(1000);
  await worker.stop();
}

/**
 * The file holds exactly the kept records, masked, with the topic the sink saw inserted: the routed
 * one (acks and commits still go to the topic the records were read from, which the checks show).
 */
function expectFile(file: string, topic: string): void {
  const written = lines(file).map((l) => JSON.parse(l) as { n: number; card: string; from: string });
  expect(written.map((w) => w.n).sort((a, b) => a - b)).toEqual(KEPT);
  expect(written.every((w) => w.card === '' && w.from === `${topic}-routed`)).toBe(true);
}

describe('transforms through the Worker into FileStreamSink', () => {
  it('share mode: kept records are written transformed, dropped ones ACCEPTed and never redelivered, the errant one REJECTed', async () => {
    const topic = await filledTopic('smt-share');
    const file = path.join(dir, `${topic}.txt`);
    const worker = workerConfig();
    const config = compileConnectorConfig(
      {
        ...connectorProps(topic, file),
        'tasks.max': '3',
        'consumer.override.group.protocol': 'share',
        'share.group.share.auto.offset.reset': 'earliest',
        'share.group.share.record.lock.duration.ms': String(LOCK_MS),
      },
      worker,
    );
    const w = new Worker({ worker, logger: testLogger, connectors: [config] });
    await runUntil(w, () => {
      const [summary] = w.summary().connectors;
      return (
        (summary?.counters['recordsAccepted'] ?? 0) + (summary?.counters['recordsRejected'] ?? 0) >= RECORDS
      );
    });
    expect(w.taskFailures).toEqual([]);
    expectFile(file, topic);
    const [summary] = w.summary().connectors;
    expect(summary!.counters).toMatchObject({ recordsAccepted: KEPT.length + DROPPED, recordsRejected: 1 });

    // past the lock duration nothing is left: dropped records were acknowledged, not left to expire
    await sleep(LOCK_MS + 500);
    const check = consumers.make(config.groupId);
    await check.subscribe([topic]);
    expect(await pollFor(check, 4000)).toEqual([]);
  });

  it('classic mode: kept records are written transformed, the errant one dead-lettered, all offsets committed', async () => {
    const topic = await filledTopic('smt-classic');
    const dlq = `${topic}-dlq`;
    topics.push(dlq);
    const file = path.join(dir, `${topic}.txt`);
    const worker = workerConfig();
    const config = compileConnectorConfig(
      {
        ...connectorProps(topic, file),
        'tasks.max': '2',
        'consumer.override.auto.offset.reset': 'earliest',
        'errors.deadletterqueue.topic.name': dlq,
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
      worker,
    );
    const w = new Worker({ worker, logger: testLogger, connectors: [config] });
    await runUntil(w, () => lines(file).length >= KEPT.length);
    expect(w.taskFailures).toEqual([]);
    expectFile(file, topic);

    // the record Cast could not read, as it was read, with Connect's context headers
    const [dead] = await readFromBeginning(dlq, 1);
    expect(JSON.parse(dead!.value!.toString('utf8'))).toEqual({ n: 'not a number', card: `4111-${ERRANT}` });
    const header = (name: string) => dead!.headers.get(`__connect.errors.${name}`)?.toString('utf8');
    expect(header('stage')).toBe('TRANSFORMATION');
    expect(header('topic')).toBe(topic);
    expect(header('class.name')).toBe('org.apache.kafka.connect.transforms.Cast$Value');
    expect(header('exception.message')).toMatch(
      /^transform cast \(org\.apache\.kafka\.connect\.transforms\.Cast\$Value\) failed/,
    );

    const { committed, end } = await committedAndEndOffsets(config.groupId, topic);
    expect(committed).toEqual(end);
  });

  it('a custom transform module that is not a transformation fails the connector start, before any task', async () => {
    const topic = await filledTopic('smt-bad-module');
    const worker = workerConfig();
    const config = compileConnectorConfig(
      {
        name: `${topic}-file`,
        'connector.class': 'FileStreamSink',
        file: path.join(dir, `${topic}.txt`),
        topics: topic,
        transforms: 'custom',
        'transforms.custom.type': './test/fixtures/transforms/not-a-transform.ts',
      },
      worker,
      { cwd: REPO_ROOT },
    );
    const w = new Worker({ worker, logger: testLogger, connectors: [config] });
    // checked with the connector's code before anything connects, as `sharesink validate` does
    const err = (await w.start().then(
      () => undefined,
      (e: unknown) => e,
    )) as ConfigError | undefined;
    expect(err).toMatchObject({
      code: 'SHARESINK_CONFIG_INVALID',
      problems: [
        { connector: `${topic}-file`, key: 'transforms', message: expect.stringMatching(/not-a-transform/) },
      ],
    });
    expect(err?.problemLines()).toEqual([
      expect.stringMatching(new RegExp(`^${topic}-file: transforms: .*not-a-transform`)),
    ]);
    await w.stop();
    expect(lines(path.join(dir, `${topic}.txt`))).toEqual([]);
  });
});
