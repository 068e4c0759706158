// Helpers for the share-consumer integration tests (share-interop, share-records, share-dlq):
// polling loops, the Java fixture peers of test/fixtures/java/ShareFixture.java, and a raw
// from-the-beginning reader that keeps header bytes.
//
//   const java = await startJavaShareConsumer({ group, topic, clientId: 'java-peer' });
//   await java.stop();  // java.records: what it accepted
//   const stats = await runJavaProducer({ topic, compression: 'zstd', count: 50, prefix: 'z' });
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import {
  ShareConsumer,
  type ShareConsumerOptions,
  type ShareRecord,
} from '../../../src/kafka/share/share-consumer.js';
import { REPO_ROOT, TOOL_JVM_OPTS, kafkaClasspath, kafkaClient, testBrokers, uniqueGroup } from './kafka.js';
import { sleep } from './wait.js';

/** The logger the share tests use (level from SHARESINK_TEST_LOG_LEVEL, default warn). */
export const testLogger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });

/**
 * Makes ShareConsumers on the test broker and remembers them, so a file's afterAll closes every one:
 *   const consumers = shareConsumers(); … consumers.make(group) … afterAll(() => consumers.closeAll())
 */
export function shareConsumers(defaults: Partial<ShareConsumerOptions> = {}) {
  const made: ShareConsumer[] = [];
  return {
    make(groupId: string, options: Partial<ShareConsumerOptions> = {}): ShareConsumer {
      const c = new ShareConsumer({
        brokers: testBrokers().split(','),
        groupId,
        logger: testLogger,
        clientId: 'sharesink-it',
        ...defaults,
        ...options,
      });
      made.push(c);
      return c;
    },
    /** Registers a consumer made elsewhere so closeAll() closes it too. */
    track(c: ShareConsumer): ShareConsumer {
      made.push(c);
      return c;
    },
    closeAll(): Promise<unknown> {
      return Promise.all(made.splice(0).map((c) => c.close().catch(() => undefined)));
    },
  };
}

/** Polls until `want` records arrived or `timeoutMs` passed; returns what came. */
export async function pollUntil(c: ShareConsumer, want: number, timeoutMs: number): Promise<ShareRecord[]> {
  const got: ShareRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (got.length < want && Date.now() < deadline) {
    got.push(...(await c.poll({ maxWaitMs: Math.max(1, Math.min(1000, deadline - Date.now())) })));
  }
  return got;
}

/** Polls for `ms` and returns everything delivered. */
export async function pollFor(c: ShareConsumer, ms: number): Promise<ShareRecord[]> {
  const got: ShareRecord[] = [];
  const deadline = Date.now() + ms;
  while (Date.now() < deadline)
    got.push(...(await c.poll({ maxWaitMs: Math.max(1, deadline - Date.now()) })));
  return got;
}

export { sleep };

// ------------------------------------------------------------------ Java fixture

const FIXTURE_SOURCE = path.join(REPO_ROOT, 'test', 'fixtures', 'java', 'ShareFixture.java');
let compiled: Promise<string> | undefined;

/** Compiles ShareFixture.java against the broker's jars into a temp dir (once per test file). */
export function compileJavaFixture(): Promise<string> {
  compiled ??= (async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'sharesink-java-'));
    const { code, output } = await run('javac', ['-cp', kafkaClasspath(), '-d', out, FIXTURE_SOURCE]);
    if (code !== 0) throw new Error(`javac ${FIXTURE_SOURCE} failed (exit ${code}):\n${output}`);
    return out;
  })();
  return compiled;
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', (err) =>
      reject(new Error(`cannot run ${command} (a JDK 17+ with javac must be on PATH): ${err.message}`)),
    );
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function spawnFixture(args: string[]): Promise<ChildProcess> {
  const dir = await compileJavaFixture();
  const cp = `${kafkaClasspath()}${path.delimiter}${dir}`;
  return spawn('java', [...TOOL_JVM_OPTS, '-cp', cp, 'ShareFixture', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export interface JavaRecord {
  topic: string;
  partition: number;
  offset: number;
  deliveryCount: number;
  value: string;
}

export interface JavaShareConsumer {
  readonly clientId: string;
  /** Records it accepted so far, in arrival order. */
  readonly records: JavaRecord[];
  /** Resolves once the consumer has subscribed (it has not necessarily got an assignment yet). */
  readonly ready: Promise<void>;
  /** Sends "stop", waits for a clean close and returns its stderr. Rejects if it exits non-zero. */
  stop(timeoutMs?: number): Promise<string>;
  /** Kills the JVM (for afterAll). */
  kill(): void;
}

/** Starts a Java KafkaShareConsumer (explicit mode, accepts every record) in `group`. */
export async function startJavaShareConsumer(opts: {
  group: string;
  topic: string;
  clientId: string;
}): Promise<JavaShareConsumer> {
  const child = await spawnFixture(['consume', testBrokers(), opts.group, opts.topic, opts.clientId]);
  const records: JavaRecord[] = [];
  let stderr = '';
  let closedLine: string | undefined;
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line === 'READY') resolve();
      else if (line.startsWith('CLOSED')) closedLine = line;
      else if (line.startsWith('REC\t')) {
        const [, topic, partition, offset, deliveryCount, ...value] = line.split('\t');
        records.push({
          topic: topic!,
          partition: Number(partition),
          offset: Number(offset),
          deliveryCount: Number(deliveryCount),
          value: value.join('\t'),
        });
      }
    });
    void exited.then((code) =>
      reject(new Error(`Java share consumer exited (${code}) before READY:\n${stderr}`)),
    );
  });
  return {
    clientId: opts.clientId,
    records,
    ready,
    async stop(timeoutMs = 30_000) {
      child.stdin!.end('stop\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      if (code !== 0 || closedLine === undefined)
        throw new Error(`Java share consumer did not close cleanly (exit ${code}):\n${stderr}`);
      return stderr;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

export interface JavaProducerStats {
  'compression-rate-avg': number;
  'batch-size-avg': number;
  'record-send-total': number;
  'records-per-request-avg': number;
}

/**
 * For each codec in turn (one JVM), produces `count` records to partition 0 of `topic` with a Java
 * KafkaProducer set to compression.type=<codec> and batching (linger.ms=50). Values are
 * `<codec>-<i>|<padding>` ({@link javaProducedValue}), keys `k<i>`, header `i`=`<i>`. Returns each
 * producer's own metrics by codec.
 */
export async function runJavaProducer(opts: {
  topic: string;
  codecs: readonly string[];
  count: number;
}): Promise<Map<string, JavaProducerStats>> {
  const child = await spawnFixture([
    'produce',
    testBrokers(),
    opts.topic,
    opts.codecs.join(','),
    String(opts.count),
  ]);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const stats = new Map<string, JavaProducerStats>();
  for (const line of stdout.split('\n')) {
    const m = /^PRODUCED (\S+) (\{.*\})$/.exec(line);
    if (m) stats.set(m[1]!, JSON.parse(m[2]!) as JavaProducerStats);
  }
  if (code !== 0 || stats.size !== opts.codecs.length)
    throw new Error(`Java producer failed (exit ${code}):\n${stderr}\n${stdout}`);
  return stats;
}

/** The value the Java producer wrote for record `i` of `codec`. */
export function javaProducedValue(codec: string, i: number): string {
  return `${codec}-${i}|${'sharesink-compression-padding-'.repeat(8)}`;
}

// ------------------------------------------------------------------ classic reader

export interface RawRecord {
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  /** Header name → value bytes (last one wins for a repeated name). */
  headers: Map<string, Buffer | null>;
}

/** Waits until `topic` exists with a leader for every partition (e.g. one the broker creates itself). */
export async function waitForTopic(topic: string, timeoutMs = 30_000): Promise<void> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await admin.listTopics()).includes(topic)) {
        // right after creation the metadata may still say UNKNOWN_TOPIC_OR_PARTITION: ask again
        const ready = await admin.fetchTopicMetadata({ topics: [topic] }).then(
          ({ topics }) => topics[0]?.partitions.every((p) => p.leader >= 0) ?? false,
          () => false,
        );
        if (ready) return;
      }
      if (Date.now() > deadline) throw new Error(`topic ${topic} did not appear within ${timeoutMs} ms`);
      await sleep(200);
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads `topic` from the beginning with a kafkajs classic consumer in a fresh group until `count`
 * records came, or rejects after `timeoutMs` naming how many did. Waits for the topic to exist first.
 */
export async function readFromBeginning(
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<RawRecord[]> {
  await waitForTopic(topic, timeoutMs);
  const consumer = kafkaClient('sharesink-test-reader').consumer({
    groupId: uniqueGroup('reader'),
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
  });
  const seen: RawRecord[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${seen.length}/${count} records from ${topic} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: ({ partition, message }) => {
            const headers = new Map<string, Buffer | null>();
            for (const [k, v] of Object.entries(message.headers ?? {})) {
              const last = Array.isArray(v) ? v[v.length - 1] : v;
              headers.set(k, last === undefined ? null : Buffer.from(last));
            }
            seen.push({
              partition,
              offset: Number(message.offset),
              key: message.key,
              value: message.value,
              headers,
            });
            if (seen.length >= count) {
              clearTimeout(timer);
              resolve();
            }
            return Promise.resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
