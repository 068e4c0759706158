// What `sharesink validate` / `standalone` tell a Connect user who brings their own worker and connector files.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileFiles } from '../../../src/cli/compile-files.js';
import { watchFailures } from '../../../src/cli/main.js';
import { classicConsumerNotes, workerNotes } from '../../../src/cli/validate-notes.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';
import type { Logger } from 'pino';

const dir = mkdtempSync(join(tmpdir(), 'sharesink-first-contact-'));
function file(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function problemsOf(worker: string, ...connectors: string[]): Promise<readonly string[]> {
  const err = await compileFiles(worker, connectors).then(
    () => expect.fail('it compiled'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problemLines().map((p) => p.split('; accepted: ')[0]!);
}

describe('every problem of every file at once', () => {
  it("a worker file's problem no longer hides the connector files' problems", async () => {
    const worker = file('avro-worker.properties', [
      'bootstrap.servers=localhost:9092',
      'value.converter=io.confluent.connect.avro.AvroConverter',
      'value.converter.schema.registry.url=http://localhost:8081',
    ]);
    const connector = file('bad.properties', [
      'name=bad',
      'connector.class=NoopSink',
      'topics=orders',
      'tasks.max=0',
    ]);
    expect(await problemsOf(worker, connector)).toEqual([
      `${worker}: value.converter: "io.confluent.connect.avro.AvroConverter" is a Java class, and sharesink runs no Java: records in Schema Registry formats need a converter module that decodes them (a Node module whose default export is a Converter class); or have the producers write JSON and use JsonConverter`,
      `${connector}: tasks.max: "0" is less than 1`,
    ]);
  });

  it("a connector's own checks are listed with the runtime's, not after they are fixed", async () => {
    const worker = file('worker.properties', ['bootstrap.servers=localhost:9092']);
    const connector = file('jdbc.properties', [
      'name=jdbc-orders',
      'connector.class=PostgresSink',
      'topics=orders',
      'connection.url=postgres://localhost:5432/test',
      // the URL names the host; so does this: the sink's own check refuses the pair
      'connection.host=localhost',
      'errors.deadletterqueue.topic.name=orders-dlq',
      'consumer.override.group.protocol=share',
    ]);
    const problems = await problemsOf(worker, connector);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(
      `${connector}: errors.deadletterqueue.topic.name: "orders-dlq" cannot be a share group's dead-letter topic`,
    );
    expect(problems[1]).toMatch(new RegExp(`^${connector.replace(/[.]/g, '\\.')}: connection\\.url: `));
  });

  it('a valid pair still compiles', async () => {
    const worker = file('ok-worker.properties', ['bootstrap.servers=localhost:9092']);
    const connector = file('ok.properties', ['name=ok', 'connector.class=NoopSink', 'topics=orders']);
    const { connectors } = await compileFiles(worker, [connector]);
    expect(connectors.map((c) => c.name)).toEqual(['ok']);
  });
});

describe('validate notes', () => {
  it("Connect settings with no effect: one line per reason, not Kafka's sentence once per key", () => {
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'offset.storage.file.filename': '/tmp/connect.offsets',
      'offset.flush.interval.ms': '10000',
      'internal.key.converter': 'org.apache.kafka.connect.json.JsonConverter',
    });
    const notes = workerNotes(worker);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(
      /^offset\.storage\.file\.filename, offset\.flush\.interval\.ms: no effect here: /,
    );
    expect(notes[1]).toMatch(/^internal\.key\.converter: no effect here: removed from Kafka Connect in 3\.0/);
  });

  it('classic mode: the consumer settings each task will say it does not use, as the files wrote them', () => {
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'consumer.interceptor.classes':
        'io.confluent.monitoring.clients.interceptor.MonitoringConsumerInterceptor',
    });
    const c = compileConnectorConfig(
      {
        name: 'n',
        'connector.class': 'NoopSink',
        topics: 't',
        'consumer.override.client.rack': 'rack-1',
        'consumer.override.max.pol.records': '5',
      },
      worker,
    );
    expect(classicConsumerNotes(c)).toEqual([
      'consumer.interceptor.classes, consumer.override.client.rack: not used in classic mode (its consumer reads auto.offset.reset, isolation.level, session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms, max.poll.records and the fetch sizes and wait); ignored',
    ]);
    expect(classicConsumerNotes({ ...c, groupProtocol: 'share' })).toEqual([]);
  });
});

describe('standalone without listeners, when every task failed', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps the process alive until it has stopped the worker and exited with code 1', async () => {
    vi.useFakeTimers();
    const finished: number[] = [];
    const stopped: string[] = [];
    const logger = { error: vi.fn() } as unknown as Logger;
    const worker = {
      summary: () => ({ connectors: [{ tasks: [{ state: 'failed' }] }] }),
      stop: async () => void stopped.push('stop'),
      taskFailures: [],
    } as unknown as Parameters<typeof watchFailures>[0];
    const watchdog = watchFailures(worker, logger, (code) => finished.push(code));
    // an unref'd watchdog let Node end the process (code 0, no summary) before it fired
    expect(watchdog.hasRef()).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(stopped).toEqual(['stop']);
    expect(finished).toEqual([1]);
  });
});
