// `sharesink check`'s broker-restart fault on the real broker: the kit runs the command it is given
// (here the project's own scripts, which restart the shared test broker), waits for the broker to
// answer, and the run's drain proves no record was lost. In the faults-broker project: it restarts the
// shared broker, so it runs alone, after every other fault file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConnector, formatRunSchedule } from '../../src/testing/index.js';
import { runKafkaScript } from '../integration/harness/broker.js';
import { kafkaVersion, REPO_ROOT, testBrokers } from '../integration/harness/kafka.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-check-restart-'));
const [host, port] = testBrokers().split(':');

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // whatever happened, leave the shared broker running
  const env = { KAFKA_PORT: port!, KAFKA_VERSION: kafkaVersion() };
  const status = await runKafkaScript('status.sh', env);
  if (status.code !== 0 || !status.output.includes('listening: yes')) await runKafkaScript('start.sh', env);
});

describe('sharesink check: broker-restart', () => {
  it('restarts the broker with the given command mid-run; FileStreamSink loses nothing', async () => {
    expect([host, testBrokers().includes(',')]).toEqual(['127.0.0.1', false]); // ours to restart
    const env = `KAFKA_PORT=${port} KAFKA_VERSION=${kafkaVersion()}`;
    const file = path.join(dir, 'file.txt');
    const report = await checkConnector({
      worker: {
        'bootstrap.servers': testBrokers(),
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'pool.threads': '1',
      },
      connector: {
        name: 'check-restart-file',
        'connector.class': 'FileStreamSink',
        topics: 'replaced',
        file,
        'consumer.override.group.protocol': 'share',
      },
      runs: 1,
      faults: ['broker-restart'],
      brokerRestartCommand: `${env} bash scripts/kafka/stop.sh && ${env} bash scripts/kafka/start.sh`,
      examples: [
        {
          partitions: 2,
          lockRenewal: 'auto',
          steps: [
            { records: 6, fault: { kind: 'broker-restart' } },
            { records: 3, fault: { kind: 'none' } },
          ],
        },
      ],
      timeLimitMs: 150_000, // bounds the shrinking of a failure
      cwd: REPO_ROOT,
    });
    const run = report.failure?.run;
    expect(run === undefined ? [] : [formatRunSchedule(run.schedule), run.lost, run.undrained]).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.faults['broker-restart']).toBe(1);
    expect(report.recordsChecked).toBe(9);
    // every record is in the sink (a restart may deliver some twice: FileStreamSink is not idempotent)
    const lines = new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );
    expect(lines.size).toBe(9);
  });

  it('broker-restart without a command is refused, naming the option', async () => {
    await expect(
      checkConnector({
        worker: { 'bootstrap.servers': testBrokers() },
        connector: {
          name: 'x',
          'connector.class': 'FileStreamSink',
          topics: 't',
          file: path.join(dir, 'never.txt'),
        },
        faults: ['broker-restart'],
      }),
    ).rejects.toThrow(/broker-restart needs --broker-restart-command/);
  });
});
