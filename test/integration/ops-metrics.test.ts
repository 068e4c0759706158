// docs/ops against a running worker (real CLI, real broker): every metric the Grafana dashboard and
// the KEDA ScaledObject use is in what `/metrics` answers for a worker with a share-mode and a classic
// connector that have read records, and the KEDA query's metric carries the lag of the share group.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './harness/cli.js';
import {
  createTopic,
  deleteTopics,
  produce,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-ops-'));
const topics: string[] = [];
const OPS = new URL('../../docs/ops/', import.meta.url);

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

const namesIn = (text: string) => [...new Set(text.match(/\bsharesink_[a-z0-9_]+\b/g) ?? [])];
const sampleNames = (text: string) =>
  new Set(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
  );

describe('docs/ops against /metrics of a running worker', () => {
  it('every metric the dashboard and the KEDA query name is exposed', async () => {
    const name = uniqueGroup('ops');
    const topic = uniqueTopic('ops');
    await createTopic(topic, { partitions: 2 });
    topics.push(topic);
    await produce(
      topic,
      Array.from({ length: 40 }, (_, i) => `r-${i}`),
    );
    const w = path.join(dir, `${name}-worker.properties`);
    writeFileSync(
      w,
      [
        `bootstrap.servers=${testBrokers()}`,
        'listeners=http://127.0.0.1:0',
        'pool.threads=1',
        'metrics.lag.poll.interval.ms=1000',
      ].join('\n'),
    );
    const connector = (suffix: string, lines: string[]) => {
      const file = path.join(dir, `${name}-${suffix}.properties`);
      writeFileSync(
        file,
        [
          `name=${name}-${suffix}`,
          'connector.class=NoopSink',
          `topics=${topic}`,
          'value.converter=org.apache.kafka.connect.storage.StringConverter',
          ...lines,
        ].join('\n'),
      );
      return file;
    };
    const share = connector('share', [
      'consumer.override.group.protocol=share',
      'share.group.share.auto.offset.reset=earliest',
    ]);
    const classic = connector('classic', ['consumer.override.auto.offset.reset=earliest']);
    const run = startCli(['standalone', w, share, classic]);
    try {
      const url = await until(
        'the REST URL in the log',
        () => /"url":"(https?:[^"]+)"/.exec(run.stderr())?.[1],
        (u) => u !== undefined,
      );
      // both connectors have put records, and a lag reading of the share group is in
      const metrics = await until(
        'lag and put series for both connectors',
        async () => await (await fetch(`${url}/metrics`)).text(),
        (text) =>
          /sharesink_share_partition_lag\{[^}]*\} \d/.test(text) &&
          new RegExp(
            `sharesink_task_records_accepted_total\\{connector="${name}-classic"[^}]*\\} [1-9]`,
          ).test(text) &&
          new RegExp(`sharesink_task_records_accepted_total\\{connector="${name}-share"[^}]*\\} [1-9]`).test(
            text,
          ),
      );
      const exposed = sampleNames(metrics);
      const dashboard = readFileSync(new URL('grafana-dashboard.json', OPS), 'utf8');
      const keda = readFileSync(new URL('keda-scaledobject.yaml', OPS), 'utf8');
      const used = namesIn(dashboard + keda);
      expect(used.length).toBeGreaterThan(20);
      expect(used.filter((n) => !exposed.has(n))).toEqual([]);
      // the KEDA query's series, labelled as the query selects it
      expect(metrics).toMatch(
        new RegExp(
          `sharesink_share_partition_lag\\{connector="${name}-share",topic="${topic}",partition="[01]"\\} \\d+`,
        ),
      );
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
