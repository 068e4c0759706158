// group.protocol=consumer (KIP-848) on the real broker, as a user runs it: Kafka's connect-file-sink
// properties plus consumer.override.group.protocol=consumer write every record and Kafka's group tool
// lists a consumer-protocol group with sharesink's members; a Java consumer and sharesink tasks share
// one group, every record processed once; a group id held by a classic group gets one coded message.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaCluster } from '../../src/kafka/cluster.js';
import { JoinGroup } from '../../src/kafka/protocol/messages/join-group.js';
import { startCli, type CliRun } from './harness/cli.js';
import {
  createTopic,
  deleteTopics,
  produce,
  runJavaTool,
  spawnJavaTool,
  testBrokers,
  Tools,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { lines, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-consumer-protocol-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

function workerFile(name: string): string {
  const file = path.join(dir, `worker-${name}.properties`);
  writeFileSync(
    file,
    [
      `bootstrap.servers=${testBrokers()}`,
      'key.converter=org.apache.kafka.connect.storage.StringConverter',
      'value.converter=org.apache.kafka.connect.storage.StringConverter',
      'pool.threads=1',
    ].join('\n'),
  );
  return file;
}

/** Kafka's config/connect-file-sink.properties, pointed at `topic`, plus the one switch. */
function fileSinkFile(name: string, topic: string, sink: string, extra: string[] = []): string {
  const file = path.join(dir, `${name}.properties`);
  writeFileSync(
    file,
    [
      `name=${name}`,
      'connector.class=FileStreamSink',
      'tasks.max=1',
      `file=${sink}`,
      `topics=${topic}`,
      'consumer.override.group.protocol=consumer',
      ...extra,
    ].join('\n'),
  );
  return file;
}

async function groupTool(args: string[]): Promise<string> {
  const r = await runJavaTool(Tools.ConsumerGroupCommand, ['--bootstrap-server', testBrokers(), ...args]);
  return r.stdout;
}

/** `--describe --members`: member rows as [clientId, partitions]. */
async function members(group: string): Promise<Array<[string, number]>> {
  const out = await groupTool(['--describe', '--members', '--group', group]);
  return out
    .split('\n')
    .filter((l) => l.startsWith(group + ' '))
    .map((l) => l.trim().split(/\s+/))
    .map((cols) => [cols[3]!, Number(cols[4])]);
}

async function stop(run: CliRun): Promise<number | null> {
  run.child.kill('SIGTERM');
  return run.exited;
}

describe('group.protocol=consumer (KIP-848)', () => {
  it("Kafka's connect-file-sink plus the override writes every record; the group tool lists a consumer-protocol group of sharesink members", async () => {
    const topic = uniqueTopic('consumer-file');
    topics.push(topic);
    await createTopic(topic, { partitions: 3 });
    const values = Array.from({ length: 600 }, (_, i) => `r-${i}`);
    await produce(topic, values);
    const name = `cp-file-${topic.slice(-8)}`;
    const sink = path.join(dir, `${name}.txt`);
    const run = startCli(['standalone', workerFile(name), fileSinkFile(name, topic, sink, ['tasks.max=2'])]);
    try {
      await until(
        'every record in the file',
        () => new Set(lines(sink)).size,
        (n) => n >= values.length,
        30_000,
      );
      const group = `connect-${name}`;
      const list = await groupTool(['--list', '--type']);
      expect(list).toMatch(new RegExp(`^${group}\\s+Consumer\\s*$`, 'm'));
      const ms = await members(group);
      expect(ms.map(([c]) => c).sort()).toEqual([`sharesink-${name}-0`, `sharesink-${name}-1`]);
      expect(ms.reduce((n, [, p]) => n + p, 0)).toBe(3);
    } finally {
      expect(await stop(run), run.stderr()).toBe(0);
    }
    expect(lines(sink).sort()).toEqual([...values].sort());
  }, 40_000);

  it('a Java KafkaConsumer (group.protocol=consumer) and sharesink tasks share one group: every record once', async () => {
    const topic = uniqueTopic('consumer-mixed');
    topics.push(topic);
    await createTopic(topic, { partitions: 4 });
    const name = `cp-mixed-${topic.slice(-8)}`;
    const group = `connect-${name}`;
    const sink = path.join(dir, `${name}.txt`);
    const javaProps = path.join(dir, `${name}-java.properties`);
    // earliest: with the console consumer's default (latest), a peer slow to look up its position after
    // the assignment (CI, under load) started past the records already produced to its partition
    writeFileSync(
      javaProps,
      [
        `group.id=${group}`,
        'group.protocol=consumer',
        'client.id=java-peer',
        'auto.offset.reset=earliest',
      ].join('\n'),
    );
    const java = spawnJavaTool(Tools.ConsoleConsumer, [
      '--bootstrap-server',
      testBrokers(),
      '--topic',
      topic,
      '--command-config',
      javaProps,
    ]);
    let javaOut = '';
    java.stdout!.on('data', (d: Buffer) => (javaOut += d.toString()));
    const run = startCli(['standalone', workerFile(name), fileSinkFile(name, topic, sink, ['tasks.max=2'])]);
    const values = Array.from({ length: 800 }, (_, i) => `m-${i}`);
    try {
      // all three members hold partitions before any record exists: no rebalance while records flow
      const ms = await until(
        'three members with partitions',
        () => members(group),
        (m) => m.length === 3 && m.every(([, p]) => p > 0) && m.reduce((n, [, p]) => n + p, 0) === 4,
        30_000,
      );
      expect(ms.map(([c]) => c).sort()).toEqual(['java-peer', `sharesink-${name}-0`, `sharesink-${name}-1`]);
      await produce(topic, values);
      const seen = () => [...lines(sink), ...javaOut.split('\n').filter(Boolean)];
      await until(
        'every record once, by one side or the other',
        () => seen().length,
        (n) => n >= values.length,
        20_000,
      );
      const all = seen();
      expect(new Set(all).size).toBe(all.length); // no duplicates
      expect(all.sort()).toEqual([...values].sort());
      expect(javaOut.split('\n').filter(Boolean).length).toBeGreaterThan(0);
      expect(lines(sink).length).toBeGreaterThan(0);
    } finally {
      java.kill('SIGTERM');
      expect(await stop(run), run.stderr()).toBe(0);
    }
  }, 40_000);

  it('a group id held by a classic group fails the task with SHARESINK_CONSUMER_GROUP_REFUSED', async () => {
    const topic = uniqueTopic('consumer-held');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const group = uniqueGroup('consumer-held');
    // a classic member that is not a consumer (protocol type "connect"): the broker will not convert its group
    const cluster = new KafkaCluster({
      brokers: testBrokers().split(','),
      logger: pino({ level: 'silent' }),
    });
    try {
      const coordinator = await cluster.findGroupCoordinator(group);
      const conn = await cluster.connectionTo(coordinator.nodeId);
      const join = (memberId: string) =>
        conn.call(JoinGroup, {
          groupId: group,
          // the member never sends SyncGroup: the broker drops it after the rebalance timeout, and an empty
          // classic group would be converted, not refused; both outlast a CLI starting on a loaded machine
          sessionTimeoutMs: 60_000,
          rebalanceTimeoutMs: 60_000,
          memberId,
          groupInstanceId: null,
          protocolType: 'connect',
          protocols: [{ name: 'sessioned', metadata: Buffer.alloc(0) }],
          reason: null,
        });
      const first = await join('');
      expect((await join(first.memberId)).errorCode).toBe(0);
      const name = `cp-held-${topic.slice(-8)}`;
      const run = startCli([
        'standalone',
        workerFile(name),
        fileSinkFile(name, topic, path.join(dir, `${name}.txt`), [`consumer.override.group.id=${group}`]),
      ]);
      try {
        const said = await until(
          'the coded refusal in the log',
          () => /SHARESINK_CONSUMER_GROUP_REFUSED|is a classic consumer group[^"]*/.exec(run.stderr())?.[0],
          (m) => m !== undefined,
          25_000,
        );
        expect(said).toBeDefined();
        expect(run.stderr()).toContain(`group ${group} is a classic consumer group`);
        expect(run.stderr()).toContain('consumer.override.group.protocol=classic');
      } finally {
        await stop(run);
      }
    } finally {
      await cluster.close();
    }
  }, 40_000);
});
