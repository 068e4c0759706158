// `sharesink standalone` as a user runs it: a real process, Connect-style files, SIGTERM, summary file.
// The same connector file runs in classic mode and, with only consumer.override.group.protocol=share
// added, in share mode with more tasks than partitions; both deliver every record.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './harness/cli.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-standalone-'));
const topics: string[] = [];
const RECORDS = 2000;

interface RunResult {
  code: number | null;
  stderr: string;
  summary: {
    connectors: Array<{
      name: string;
      mode: string;
      tasks: Array<{ id: number; state: string }>;
      counters: Record<string, number>;
    }>;
  };
}

/** Runs standalone until the sink file holds `want` distinct lines, then sends SIGTERM. */
async function runStandalone(files: string[], sinkFile: string, want: number): Promise<RunResult> {
  const summaryFile = path.join(dir, `summary-${Date.now()}.json`);
  const { child, stderr, exited } = startCli(['standalone', ...files, '--summary-file', summaryFile]);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (distinctLines(sinkFile).size >= want) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  const code = await exited;
  return {
    code,
    stderr: stderr(),
    summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as RunResult['summary'],
  };
}

function distinctLines(file: string): Set<string> {
  try {
    return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
  } catch {
    return new Set();
  }
}

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe('sharesink standalone', () => {
  it('the same connector file delivers every record in classic mode and, with one line changed, in share mode', async () => {
    const topic = uniqueTopic('standalone');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    await produce(
      topic,
      Array.from({ length: RECORDS }, (_, i) => `record-${i}`),
    );
    const workerFile = path.join(dir, 'worker.properties');
    writeFileSync(
      workerFile,
      [
        `bootstrap.servers=${testBrokers()}`,
        'key.converter=org.apache.kafka.connect.storage.StringConverter',
        'value.converter=org.apache.kafka.connect.storage.StringConverter',
      ].join('\n'),
    );
    const connectorLines = (name: string, file: string) => [
      `name=${name}`,
      'connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector',
      `file=${file}`,
      `topics=${topic}`,
      'tasks.max=4',
      'consumer.override.auto.offset.reset=earliest',
    ];

    const classicSink = path.join(dir, 'classic.txt');
    const classicFile = path.join(dir, 'classic.properties');
    writeFileSync(classicFile, connectorLines(`${topic}-classic`, classicSink).join('\n'));
    const classic = await runStandalone([workerFile, classicFile], classicSink, RECORDS);
    expect(classic.code, classic.stderr).toBe(0);
    expect(distinctLines(classicSink).size).toBe(RECORDS);
    expect(classic.summary.connectors[0]!.mode).toBe('classic');

    const shareSink = path.join(dir, 'share.txt');
    const shareFile = path.join(dir, 'share.properties');
    writeFileSync(
      shareFile,
      [...connectorLines(`${topic}-share`, shareSink), 'consumer.override.group.protocol=share'].join('\n'),
    );
    const share = await runStandalone([workerFile, shareFile], shareSink, RECORDS);
    expect(share.code, share.stderr).toBe(0);
    expect(distinctLines(shareSink).size).toBe(RECORDS);
    const c = share.summary.connectors[0]!;
    expect(c.mode).toBe('share');
    // 4 tasks on 2 partitions: every task ran and stopped cleanly
    expect(c.tasks.map((t) => t.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped']);
    expect(c.counters.recordsAccepted).toBe(RECORDS);
  });

  it('validate lists every problem and exits 2', async () => {
    const bad = path.join(dir, 'bad.properties');
    writeFileSync(bad, ['name=bad', 'connector.class=Nope', 'tasks.max=zero'].join('\n'));
    const workerFile = path.join(dir, 'worker-validate.properties');
    writeFileSync(workerFile, `bootstrap.servers=${testBrokers()}\n`);
    const run = startCli(['validate', workerFile, bad]);
    const code = await run.exited;
    const stderr = run.stderr();
    expect(code).toBe(2);
    expect(stderr).toContain('Invalid configuration (3 problems)');
    expect(stderr).toContain('connector.class: "Nope" is not a sink connector sharesink has');
    expect(stderr).toContain('tasks.max: "zero" is not a 32-bit integer');
    expect(stderr).toContain('neither topics nor topics.regex is set');
  });

  it("validate also runs the connector's own checks, so a config it calls valid also starts", async () => {
    const http = path.join(dir, 'http.properties');
    writeFileSync(http, ['name=h', 'connector.class=HttpSink', 'topics=t', 'http.method=GET'].join('\n'));
    const noop = path.join(dir, 'noop-ok.properties');
    writeFileSync(noop, ['name=n', 'connector.class=NoopSink', 'topics=t'].join('\n'));
    const workerFile = path.join(dir, 'worker-validate-code.properties');
    writeFileSync(workerFile, `bootstrap.servers=${testBrokers()}\n`);
    const run = startCli(['validate', workerFile, http, noop]);
    const code = await run.exited;
    const stderr = run.stderr();
    expect(code).toBe(2);
    expect(stderr).toContain('Invalid configuration (2 problems)');
    // under the file to fix, as sharesink's own settings are
    expect(stderr).toContain(`${http}: http.url: is required and has no value`);
    expect(stderr).toContain(`${http}: http.method: "GET" is not one of the accepted values`);
    // ConfigDef problems start with their key: the key is not written twice
    expect(stderr).not.toContain('http.url: http.url');
  });
});
