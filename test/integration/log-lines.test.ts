// What `sharesink standalone` writes to stderr, read the way a log collector reads it: every line of
// a real run (share and classic connectors against the broker, then an unreachable broker) parsed as
// one JSON object with no key written twice; the readable form when asked for, and the level settings.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliRun } from './harness/cli.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { duplicateKeys, parseLogLineStrictly } from './harness/strict-json.js';
import { lines as fileLines, sleep, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-log-lines-'));
const topics: string[] = [];
const RECORDS = 200;

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

function file(name: string, lines: readonly string[]): string {
  const f = path.join(dir, name);
  writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
}

const lineCount = (f: string): number => fileLines(f).length;

/** SIGTERM (a no-op if the command already exited by itself) and the whole of stderr, line by line. */
async function stop(run: CliRun): Promise<string[]> {
  if (run.child.exitCode === null) run.child.kill('SIGTERM');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  await run.exited;
  clearTimeout(timer);
  return run.stderr().split('\n').filter(Boolean);
}

/**
 * Every line parsed strictly; the problems of all lines at once (one per message and cause), so one
 * run shows every bad binding.
 */
function strictly(lines: readonly string[]): { logs: Array<Record<string, unknown>>; problems: string[] } {
  const logs: Array<Record<string, unknown>> = [];
  const problems = new Set<string>();
  for (const line of lines) {
    try {
      logs.push(parseLogLineStrictly(line));
    } catch (err) {
      const dups = duplicateKeys(line);
      problems.add(
        dups.length > 0
          ? `${dups.join(', ')} twice in "${String((JSON.parse(line) as { msg?: unknown }).msg)}"`
          : (err as Error).message.slice(0, 300),
      );
    }
  }
  return { logs, problems: [...problems] };
}

const firstLine = (run: CliRun) =>
  until(
    'a first log line',
    () => run.stderr(),
    (text) => text.includes('\n') || run.child.exitCode !== null,
    60_000,
  );

const realWorker = (name: string, extra: readonly string[] = []) =>
  file(name, [
    `bootstrap.servers=${testBrokers()}`,
    'key.converter=org.apache.kafka.connect.storage.StringConverter',
    'value.converter=org.apache.kafka.connect.storage.StringConverter',
    'pool.threads=1',
    ...extra,
  ]);
const deadWorker = (name: string, extra: readonly string[] = []) =>
  file(name, ['bootstrap.servers=127.0.0.1:9', ...extra]);
const noopConnector = (name: string, topic = 't') =>
  file(`${name}.properties`, [`name=${name}`, 'connector.class=NoopSink', `topics=${topic}`, 'tasks.max=2']);

describe('log lines of sharesink standalone', () => {
  it('a run in both modes against the broker writes only JSON objects, none with a key twice', async () => {
    const topic = uniqueTopic('log-lines');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    await produce(
      topic,
      Array.from({ length: RECORDS }, (_, i) => `record-${i}`),
    );
    const connector = (mode: string, sink: string) =>
      file(`${mode}.properties`, [
        `name=${topic}-${mode}`,
        'connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector',
        `file=${sink}`,
        `topics=${topic}`,
        'tasks.max=2',
        'consumer.override.auto.offset.reset=earliest',
        `consumer.override.group.protocol=${mode}`,
      ]);
    const shareSink = path.join(dir, 'share.txt');
    const classicSink = path.join(dir, 'classic.txt');
    // debug, from the worker file: more code paths log, so more chances to catch a key bound twice
    const run = startCli([
      'standalone',
      realWorker('worker-debug.properties', ['log.level=debug']),
      connector('share', shareSink),
      connector('classic', classicSink),
    ]);
    await until(
      'both sinks to hold every record',
      () => lineCount(shareSink) + lineCount(classicSink),
      (n) => n >= 2 * RECORDS || run.child.exitCode !== null,
      90_000,
    );
    const lines = await stop(run);
    const { logs, problems } = strictly(lines);

    expect(problems).toEqual([]);
    expect(lineCount(shareSink), lines.slice(-20).join('\n')).toBe(RECORDS);
    expect(lineCount(classicSink)).toBe(RECORDS);
    // log.level=debug in the worker file, no flag: debug lines are there
    expect(logs.some((l) => l.level === 20)).toBe(true);
    // the paths that bound keys twice before: task runners in both modes, kafkajs, the cluster, the pool
    const messages = logs.map((l) => l.msg);
    expect(messages).toContain('share task started');
    expect(messages).toContain('classic task started');
    expect(logs.some((l) => l.kafkajs !== undefined)).toBe(true);
    expect(logs.some((l) => l.component === 'kafka')).toBe(true);
    expect(logs.find((l) => l.msg === 'share task started')).toMatchObject({
      connector: `${topic}-share`,
      task: expect.any(Number),
    });
  });

  it('an unreachable broker: JSON objects, none with a key twice', async () => {
    const run = startCli(['standalone', deadWorker('dead.properties'), noopConnector('log-lines-dead')]);
    await firstLine(run);
    await sleep(3000);
    const lines = (await stop(run)).filter((l) => !l.startsWith('sharesink:'));
    const { logs, problems } = strictly(lines);

    expect(problems).toEqual([]);
    expect(logs.length).toBeGreaterThan(0);
  });

  it('--log-format=pretty: one readable line per entry; --log-level wins over log.level', async () => {
    const topic = uniqueTopic('log-lines-pretty');
    topics.push(topic);
    await createTopic(topic);
    const run = startCli([
      'standalone',
      realWorker('worker-pretty.properties', ['log.level=debug']),
      noopConnector(`${topic}-noop`, topic),
      '--log-level',
      'info',
      '--log-format',
      'pretty',
    ]);
    await until(
      'the connector to start',
      () => run.stderr(),
      (t) => t.includes('connector started') || run.child.exitCode !== null,
    );
    const lines = await stop(run);

    expect(lines.some((l) => / INFO: \[[^\]]+\] connector started {2}mode=classic tasks=2/.test(l))).toBe(
      true,
    );
    for (const line of lines) {
      // time, level, then the message; never JSON, a stack frame, or a debug line (the flag said info)
      expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN|ERROR|FATAL): /);
      expect(line).not.toMatch(/"level":|^\s+at /);
    }
  });

  it('--log-format=pretty with an unreachable broker: readable lines too', async () => {
    const run = startCli([
      'standalone',
      deadWorker('dead-pretty.properties'),
      noopConnector('log-lines-dead-pretty'),
      '--log-format=pretty',
    ]);
    await firstLine(run);
    const lines = (await stop(run)).filter((l) => !l.startsWith('sharesink:'));

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN|ERROR|FATAL): /);
  });
});
