// Helpers for integration tests against the real broker that global-setup.ts provides.
//
//   const topic = uniqueTopic();  await createTopic(topic, { partitions: 2 });
//   const group = uniqueGroup();  await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest' });
//   await produce(topic, ['a', 'b']);
//   const { stdout } = await runJavaTool(Tools.ShareGroupCommand, ['--bootstrap-server', testBrokers(), '--list']);
//
// Names are unique per call, so tests never share topics or groups and need no cleanup to be
// independent (the broker is reused between runs).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { Kafka, logLevel, Partitioners, type IHeaders, type logCreator, type Message } from 'kafkajs';
import { KAFKA_SCRIPTS_DIR } from './broker.js';
import { incrementalAlterConfigs, ResourceType } from './wire.js';

export { REPO_ROOT, KAFKA_SCRIPTS_DIR } from './broker.js';
export { apiVersions, ApiKey } from './wire.js';

/** Bootstrap address of the test broker (global-setup's `kafkaBrokers`). */
export function testBrokers(): string {
  return inject('kafkaBrokers') ?? process.env.SHARESINK_TEST_BROKERS ?? '127.0.0.1:9092';
}

/** Kafka version of the jars that runJavaTool uses (also the broker's, when the harness started it). */
export function kafkaVersion(): string {
  return inject('kafkaVersion');
}

/** Path of the file that holds the java -cp value for Kafka's broker + tools jars. */
export function kafkaClasspathFile(): string {
  const file = inject('kafkaClasspathFile') ?? process.env.SHARESINK_KAFKA_CLASSPATH_FILE;
  if (!file)
    throw new Error('no Kafka classpath file: is test/integration/harness/global-setup.ts the globalSetup?');
  return file;
}

/** The java -cp value itself. */
export function kafkaClasspath(): string {
  return readFileSync(kafkaClasspathFile(), 'utf8').trim();
}

/** Main classes of the Kafka CLI tools (verified on 4.2.2 and 4.4.0). */
export const Tools = {
  FeatureCommand: 'org.apache.kafka.tools.FeatureCommand',
  TopicCommand: 'org.apache.kafka.tools.TopicCommand',
  ShareGroupCommand: 'org.apache.kafka.tools.consumer.group.ShareGroupCommand',
  ConsumerGroupCommand: 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  ConsoleShareConsumer: 'org.apache.kafka.tools.consumer.ConsoleShareConsumer',
  ConsoleConsumer: 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  ConsoleProducer: 'org.apache.kafka.tools.ConsoleProducer',
  ProducerPerformance: 'org.apache.kafka.tools.ProducerPerformance',
  ShareConsumerPerformance: 'org.apache.kafka.tools.ShareConsumerPerformance',
  /** ConfigCommand moved from core (Scala) to tools in 4.4. */
  get ConfigCommand(): string {
    return configCommandClass(kafkaVersion());
  },
} as const;

export function configCommandClass(version: string): string {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 4)
    ? 'org.apache.kafka.tools.ConfigCommand'
    : 'kafka.admin.ConfigCommand';
}

/** JVM flags for short-lived tool JVMs: small heap, C1 only (starts ~2x faster on 2 cores), quiet logs. */
export const TOOL_JVM_OPTS = [
  '-Xmx256m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Djava.awt.headless=true',
  `-Dlog4j2.configurationFile=${path.join(KAFKA_SCRIPTS_DIR, 'tools-log4j2.properties')}`,
];

/** The java command line for a Kafka main class from the test broker's jars (to spawn Java peers). */
export function javaCommand(
  className: string,
  args: string[],
  jvmOpts: string[] = TOOL_JVM_OPTS,
): { command: string; args: string[] } {
  return { command: 'java', args: [...jvmOpts, '-cp', kafkaClasspath(), className, ...args] };
}

/** Starts a Kafka main class as a child process (for long-running peers); the caller stops it. */
export function spawnJavaTool(className: string, args: string[], jvmOpts?: string[]): ChildProcess {
  const { command, args: argv } = javaCommand(className, args, jvmOpts);
  return spawn(command, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
}

export interface JavaToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

/** Runs a Kafka CLI tool to completion (killed after timeoutMs) and returns its output. */
export function runJavaTool(
  className: string,
  args: string[],
  options: { timeoutMs?: number; input?: string; jvmOpts?: string[] } = {},
): Promise<JavaToolResult> {
  const { timeoutMs = 60_000, input, jvmOpts } = options;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawnJavaTool(className, args, jvmOpts);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

/** Like runJavaTool, but throws (with stderr) unless the tool exits 0. */
export async function runJavaToolOk(
  className: string,
  args: string[],
  options?: { timeoutMs?: number; input?: string; jvmOpts?: string[] },
): Promise<JavaToolResult> {
  const result = await runJavaTool(className, args, options);
  if (result.code !== 0) {
    const why = result.timedOut ? 'timed out' : `exited ${result.code}`;
    throw new Error(`${className} ${args.join(' ')} ${why}:\n${result.stderr}\n${result.stdout}`);
  }
  return result;
}

/** A name no other test (or earlier run against the same broker) uses: `<prefix>-<time>-<random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
export const uniqueTopic = (prefix = 'topic'): string => uniqueName(prefix);
export const uniqueGroup = (prefix = 'group'): string => uniqueName(prefix);

// kafkajs logs these at ERROR while the group coordinator loads on a fresh broker, then retries
const TRANSIENT = /coordinator is not available|not the correct coordinator|coordinator load in progress/i;

/** kafkajs's default JSON log lines, ERROR only, minus retried coordinator-loading noise. */
const quietLogCreator: logCreator = () => (entry) => {
  if (entry.level > logLevel.ERROR) return;
  const error = String(entry.log.error ?? '');
  if (TRANSIENT.test(error)) return;
  console.error(JSON.stringify({ level: 'ERROR', logger: entry.namespace, ...entry.log }));
};

/** A kafkajs client for the test broker (errors-only logging). */
export function kafkaClient(clientId = 'sharesink-test'): Kafka {
  return new Kafka({
    clientId,
    brokers: testBrokers().split(','),
    logLevel: logLevel.ERROR,
    logCreator: quietLogCreator,
  });
}

export async function createTopic(
  topic: string,
  options: { partitions?: number; configs?: Record<string, string> } = {},
): Promise<void> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    // kafkajs's waitForLeaders retries only LEADER_NOT_AVAILABLE; a busy broker (CI on 2 cores) may
    // first answer that it does not host the new topic's partitions: that is waited out too
    const created = await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic,
          numPartitions: options.partitions ?? 1,
          replicationFactor: 1,
          configEntries: Object.entries(options.configs ?? {}).map(([name, value]) => ({ name, value })),
        },
      ],
    });
    if (!created) throw new Error(`topic ${topic} already exists`);
    await leadersElected(admin, topic, options.partitions ?? 1);
  } finally {
    await admin.disconnect();
  }
}

async function leadersElected(
  admin: ReturnType<Kafka['admin']>,
  topic: string,
  partitions: number,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const led = topics[0]?.partitions.filter((p) => p.leader >= 0).length ?? 0;
      if (led === partitions) {
        // a leader in the metadata before the broker hosts the partition: a produce then met
        // NOT_LEADER for one partition, and the records of the other partition were in the topic twice
        // (kafkajs resending the whole request, most likely). ListOffsets answers once it hosts them.
        await admin.fetchTopicOffsets(topic);
        return;
      }
      last = `${led} of ${partitions} partitions have a leader`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic}: no leaders after ${timeoutMs} ms (${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function deleteTopics(topics: string[]): Promise<void> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

export type ProduceInput =
  | string
  | { key?: string | Buffer | null; value: string | Buffer | null; headers?: IHeaders; partition?: number };

/** Produces records with kafkajs (acks=all) and returns once the broker has them. */
export async function produce(topic: string, records: ProduceInput[]): Promise<void> {
  const producer = kafkaClient('sharesink-test-producer').producer({
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  try {
    const messages: Message[] = records.map((r) => (typeof r === 'string' ? { value: r } : r));
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/**
 * Sets (or, with null, deletes) dynamic group configs, e.g. share.auto.offset.reset,
 * share.record.lock.duration.ms, errors.deadletterqueue.topic.name. Uses IncrementalAlterConfigs
 * on resource type GROUP (32) directly: kafkajs's admin cannot, and the Java ConfigCommand costs
 * a JVM start. The broker validates names and bounds and this throws its message.
 */
export async function setGroupConfig(group: string, configs: Record<string, string | null>): Promise<void> {
  await incrementalAlterConfigs(
    testBrokers(),
    ResourceType.GROUP,
    group,
    Object.entries(configs).map(([name, value]) => ({ name, value })),
  );
}

/** Every share-group test should call this before its group's first consumer joins. */
export function setShareAutoOffsetReset(
  group: string,
  value: 'earliest' | 'latest' = 'earliest',
): Promise<void> {
  return setGroupConfig(group, { 'share.auto.offset.reset': value });
}

export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

/**
 * Reads `count` records from the beginning of `topic` with a kafkajs classic consumer in a fresh
 * group, then disconnects. Rejects if they do not all arrive within timeoutMs.
 */
export async function consumeClassic(
  topic: string,
  count: number,
  options: { timeoutMs?: number; groupId?: string } = {},
): Promise<ConsumedRecord[]> {
  const { timeoutMs = 60_000, groupId = uniqueGroup('classic-reader') } = options;
  const consumer = kafkaClient('sharesink-test-consumer').consumer({
    groupId,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
  });
  const seen: ConsumedRecord[] = [];
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${seen.length}/${count} records from ${topic} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ topic: t, partition, message }) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(message.headers ?? {})) {
              if (v !== undefined) headers[k] = Array.isArray(v) ? v.map(String).join(',') : v.toString();
            }
            seen.push({
              topic: t,
              partition,
              offset: message.offset,
              key: message.key?.toString() ?? null,
              value: message.value?.toString() ?? null,
              headers,
            });
            if (seen.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

/** Committed offset and log end per partition, in partition order (a classic group is done when they match). */
export async function committedAndEndOffsets(
  group: string,
  topic: string,
): Promise<{ committed: number[]; end: number[] }> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    const ends = await admin.fetchTopicOffsets(topic);
    const byPartition = (ps: { partition: number; offset: string }[]) =>
      [...ps].sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
    return { committed: byPartition(committed?.partitions ?? []), end: byPartition(ends) };
  } finally {
    await admin.disconnect();
  }
}
