// Failures at start, as a user meets them: one clear message and exit code 1 from the real CLI, and the
// classic-mode missing-topic message from the real broker both at the start-up check and from a task.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { checkKafkaCluster } from '../../src/kafka/admin/preflight.js';
import { UnknownTopicError } from '../../src/kafka/share/share-errors.js';
import { startCli } from './harness/cli.js';
import { createTopic, deleteTopics, testBrokers, uniqueGroup, uniqueTopic } from './harness/kafka.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-startup-'));
const created: string[] = [];

afterAll(async () => {
  if (created.length > 0) await deleteTopics(created);
});

function files(worker: string[], connector: string[]): string[] {
  const name = uniqueGroup('f');
  const w = path.join(dir, `${name}-worker.properties`);
  const c = path.join(dir, `${name}-connector.properties`);
  writeFileSync(w, worker.join('\n'));
  writeFileSync(c, connector.join('\n'));
  return [w, c];
}

/** stderr's lines, the JSON log lines parsed, the plain ones as they are. */
function stderrLines(text: string): Array<string | Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : l));
}

describe('classic mode, a topic that does not exist (real broker)', () => {
  it('the start-up check names the topic and the connector', async () => {
    const missing = uniqueTopic('missing');
    const present = uniqueTopic('present');
    await createTopic(present, { partitions: 1 });
    created.push(present);
    const err = await checkKafkaCluster({
      brokers: [testBrokers()],
      timeoutMs: 5000,
      targets: [
        { name: 'connector c1', mode: 'classic', groupId: uniqueGroup('g'), topics: [present, missing] },
      ],
    }).then(
      () => expect.fail('it resolved'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownTopicError);
    expect((err as UnknownTopicError).topics).toEqual([missing]);
    expect((err as Error).message).toBe(
      `topic ${missing} does not exist (read by connector c1); create it first (sharesink does not auto-create the topics a connector reads)`,
    );
    // and the same check passes once every topic exists
    await checkKafkaCluster({
      brokers: [testBrokers()],
      timeoutMs: 5000,
      targets: [{ name: 'connector c1', mode: 'classic', groupId: uniqueGroup('g'), topics: [present] }],
    });
  });

  it("a classic task names the topic instead of kafkajs's 'This server does not host this topic-partition'", async () => {
    const missing = uniqueTopic('missing');
    const worker = compileWorkerConfig({ 'bootstrap.servers': testBrokers(), 'pool.threads': '1' });
    const connector = compileConnectorConfig(
      { name: 'classic-missing', 'connector.class': 'NoopSink', topics: missing },
      worker,
    );
    // past the start-up check (which names the topic as the first test shows): what the task says
    const w = new Worker({
      worker,
      connectors: [connector],
      logger: pino({ level: 'silent' }),
      checkCluster: false,
    });
    const err = await w.start().then(
      () => expect.fail('it started'),
      (e: unknown) => e as Error,
    );
    await w.stop();
    expect(err.message).toBe(
      `classic-missing: every task failed to start: topic ${missing} does not exist (read by connector classic-missing); create it first (sharesink does not auto-create the topics a connector reads)`,
    );
    expect(w.taskFailures.map((f) => f.error)).toEqual([
      `topic ${missing} does not exist (read by connector classic-missing); create it first (sharesink does not auto-create the topics a connector reads)`,
    ]);
  }, 60_000);

  it('sharesink standalone says it in one line and exits 1', async () => {
    const missing = uniqueTopic('missing');
    const run = startCli([
      'standalone',
      ...files(
        [`bootstrap.servers=${testBrokers()}`, 'pool.threads=1'],
        ['name=cli-missing', 'connector.class=NoopSink', `topics=${missing}`],
      ),
    ]);
    expect(await run.exited).toBe(1);
    const lines = stderrLines(run.stderr());
    expect(lines.at(-1)).toBe(
      `sharesink: topic ${missing} does not exist (read by connector cli-missing); create it first (sharesink does not auto-create the topics a connector reads)`,
    );
    expect(run.stderr()).not.toContain('does not host this topic-partition');
    // nothing was started, so nothing warned
    expect(lines.filter((l) => typeof l !== 'string' && Number(l['level']) >= 40)).toEqual([]);
  }, 60_000);
});

describe('sharesink standalone, an unreachable bootstrap.servers', () => {
  it('says once what it cannot reach and why, retries for bootstrap.timeout.ms, then exits 1 with one final line', async () => {
    const started = Date.now();
    const run = startCli([
      'standalone',
      ...files(
        ['bootstrap.servers=127.0.0.1:9', 'bootstrap.timeout.ms=3000', 'pool.threads=1'],
        ['name=dead', 'connector.class=NoopSink', 'topics=t'],
      ),
    ]);
    expect(await run.exited).toBe(1);
    const elapsed = Date.now() - started;
    const lines = stderrLines(run.stderr());
    // not a terminal: the first notice is one JSON warn line, the end one plain line
    const warnings = lines.filter((l) => typeof l !== 'string' && Number(l['level']) >= 40);
    expect(warnings).toHaveLength(1);
    expect((warnings[0] as Record<string, unknown>)['msg']).toBe(
      'cannot reach the Kafka cluster at 127.0.0.1:9 (bootstrap.servers): connect ECONNREFUSED; retrying for up to 3 s (bootstrap.timeout.ms)',
    );
    const plain = lines.filter((l): l is string => typeof l === 'string');
    expect(plain).toHaveLength(1);
    expect(plain[0]).toMatch(
      /^sharesink: cannot reach the Kafka cluster at 127\.0\.0\.1:9 \(bootstrap\.servers\): connect ECONNREFUSED; gave up after 3 s and \d+ attempts \(bootstrap\.timeout\.ms\)\. Check that a broker runs there/,
    );
    // bounded by bootstrap.timeout.ms, plus the process's own start
    expect(elapsed).toBeGreaterThanOrEqual(3000);
    expect(elapsed).toBeLessThan(30_000);
  }, 60_000);
});
