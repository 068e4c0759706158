// KafkaSink writing into the secured test broker over SASL_SSL (SCRAM-SHA-512, `producer.override.*`),
// reading a share group on the plain test broker, run by the real `sharesink standalone`. A target that
// refuses the producer (no ACL, a wrong password) must not cost a record: the records are fine, the
// client is not. The put is retried in place with its locks renewed, the warning says what to grant or
// check, nothing is rejected, and every record reaches the target once the grant lands (without a
// restart) or the password is fixed (after one).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliRun } from './harness/cli.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import {
  createSecureTopic,
  deleteSecureTopics,
  grant,
  secureAdminClient,
  secureBroker,
  SECURE,
} from './harness/secure-broker.js';
import { until } from './harness/wait.js';

const N = 60;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-kafka-secured-'));
const sourceTopics: string[] = [];
const targetTopics: string[] = [];
const PRINCIPAL = 'User:sharesink';

beforeAll(async () => {
  await secureBroker();
});
afterAll(async () => {
  if (sourceTopics.length > 0) await deleteTopics(sourceTopics);
  await deleteSecureTopics(targetTopics);
});

interface Counters {
  recordsAccepted: number;
  recordsRejected: number;
  recordsReleased: number;
}

/** A source topic on the plain broker with N records, and its `.mirror` on the secured one. */
async function topicsFor(prefix: string): Promise<{ source: string; target: string; values: string[] }> {
  const source = uniqueTopic(prefix);
  const target = `${source}.mirror`;
  await createTopic(source, { partitions: 2 });
  sourceTopics.push(source);
  await createSecureTopic(target, 2);
  targetTopics.push(target);
  const values = Array.from({ length: N }, (_, i) => `${prefix}-${i}`);
  await produce(source, values);
  return { source, target, values };
}

function startMirror(name: string, source: string, password: string, summary: string): CliRun {
  const worker = path.join(dir, `${name}-worker.properties`);
  writeFileSync(
    worker,
    [
      `bootstrap.servers=${testBrokers()}`,
      'key.converter=org.apache.kafka.connect.storage.StringConverter',
      'value.converter=org.apache.kafka.connect.storage.StringConverter',
      'pool.threads=1',
    ].join('\n'),
  );
  const connector = path.join(dir, `${name}.properties`);
  writeFileSync(
    connector,
    [
      `name=${name}`,
      'connector.class=KafkaSink',
      'tasks.max=2',
      `topics=${source}`,
      'consumer.override.group.protocol=share',
      'share.group.share.auto.offset.reset=earliest',
      `bootstrap.servers=${SECURE.saslSsl}`,
      'topic=${topic}.mirror',
      'producer.override.security.protocol=SASL_SSL',
      'producer.override.sasl.mechanism=SCRAM-SHA-512',
      `producer.override.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${SECURE.users.sharesink.username}" password="${password}";`,
      `producer.override.ssl.truststore.location=${SECURE.file('ca.pem')}`,
    ].join('\n'),
  );
  return startCli(['standalone', worker, connector, '--summary-file', summary]);
}

/** How many records `topic` of the secured broker holds (its end offsets), asked as the super user. */
async function targetCount(topic: string): Promise<number> {
  const admin = secureAdminClient('sharesink-secured-sink-check').admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The values in `topic` of the secured broker, read over its PLAINTEXT listener as the super user. */
async function targetValues(topic: string): Promise<string[]> {
  const total = await targetCount(topic);
  const consumer = secureAdminClient('sharesink-secured-sink-reader').consumer({
    groupId: `${topic}-reader`,
  });
  const values: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      void consumer
        .run({
          eachMessage: async ({ message }) => {
            values.push(message.value?.toString() ?? '');
            if (values.length >= total) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return values;
}

async function stopAndSummarize(run: CliRun, summary: string): Promise<Counters> {
  run.child.kill('SIGTERM');
  expect(await run.exited, run.stderr()).toBe(0);
  const [c] = (JSON.parse(readFileSync(summary, 'utf8')) as { connectors: Array<{ counters: Counters }> })
    .connectors;
  return c!.counters;
}

/** Waits for all N records in `target`, stops the run; nothing was rejected and every record accepted. */
async function writesAllThenStops(run: CliRun, target: string, summary: string, timeoutMs: number) {
  await until(
    `${N} records in ${target}`,
    () => targetCount(target),
    (n) => n >= N || run.child.exitCode !== null,
    timeoutMs,
  );
  const counters = await stopAndSummarize(run, summary);
  expect(counters.recordsRejected).toBe(0);
  expect(counters.recordsAccepted).toBe(N);
}

describe('KafkaSink into a secured cluster', () => {
  it('a missing WRITE ACL on the target: a warning with the grant, nothing rejected, every record written once the grant lands', async () => {
    const { source, target, values } = await topicsFor('ksec-acl');
    const summary = path.join(dir, 'acl-summary.json');
    const run = startMirror('ksec-acl', source, SECURE.users.sharesink.password, summary);
    try {
      await until(
        'the warning that the target refused the producer',
        () => run.stderr(),
        (t) => t.includes('refused User:sharesink') || run.child.exitCode !== null,
        60_000,
      );
      expect(run.child.exitCode, run.stderr()).toBeNull();
      expect(run.stderr()).toContain(
        `kafka-acls.sh --bootstrap-server ${SECURE.saslSsl} --add --allow-principal ${PRINCIPAL} --operation Write --topic ${target}`,
      );
      expect(run.stderr()).toContain('retried in place');
      expect(run.stderr()).not.toContain('SHARESINK_CONNECT_ERROR');
      expect(await targetCount(target)).toBe(0);

      await grant(PRINCIPAL, { writeTopic: target });
      // the retry backoff doubles from 100 ms: the grant is picked up within about a minute
      await writesAllThenStops(run, target, summary, 80_000);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
    expect((await targetValues(target)).sort()).toEqual([...values].sort());
  }, 180_000);

  it('a wrong password: the warning names the user, never the password; a stop releases the records, and the run with the right password writes them all', async () => {
    const { source, target, values } = await topicsFor('ksec-pw');
    await grant(PRINCIPAL, { writeTopic: target });
    const wrong = 'not-the-password';
    const first = startMirror('ksec-pw', source, wrong, path.join(dir, 'pw-1.json'));
    try {
      await until(
        'the warning that the target refused the user',
        () => first.stderr(),
        // not a terminal: JSON log lines, where the user name's quotes are escaped
        (t) => t.includes('refused SCRAM-SHA-512 user \\"sharesink') || first.child.exitCode !== null,
        60_000,
      );
      expect(first.stderr()).toContain('producer.override.sasl.jaas.config');
      expect(first.stderr()).not.toContain(wrong);
      const counters = await stopAndSummarize(first, path.join(dir, 'pw-1.json'));
      expect(counters.recordsRejected).toBe(0);
      expect(counters.recordsAccepted).toBe(0);
      expect(counters.recordsReleased).toBeGreaterThan(0);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
    }
    expect(await targetCount(target)).toBe(0);

    const summary = path.join(dir, 'pw-2.json');
    const second = startMirror('ksec-pw', source, SECURE.users.sharesink.password, summary);
    try {
      await writesAllThenStops(second, target, summary, 60_000);
    } finally {
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
    }
    expect((await targetValues(target)).sort()).toEqual([...values].sort());
  }, 180_000);
});
