// Runtime log levels on a running `sharesink standalone` (real CLI, real broker): PUT
// /admin/loggers/connector.<name> {"level":"DEBUG"} makes that connector's debug lines appear (a slow
// put's lock renewals), PUT /admin/loggers/kafka {"level":"INFO"} takes its Kafka clients' out again,
// and no debug line comes from any other logger; GET shows the change.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestCli } from './harness/cli.js';
import { createTopic, deleteTopics, produce, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-log-levels-'));
const topics: string[] = [];
const FAULTS_SINK = new URL('../fixtures/connectors/faults-sink.ts', import.meta.url).href;

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

type Line = Record<string, unknown>;
const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

describe('/admin/loggers on a running worker', () => {
  it("a connector goes to DEBUG, its kafka clients back to INFO: only the connector's own debug lines appear", async () => {
    const name = uniqueGroup('levels');
    const topic = uniqueTopic('levels');
    await createTopic(topic, { partitions: 1 });
    topics.push(topic);
    const run = await startRestCli(
      dir,
      name,
      topic,
      [],
      [
        `connector.class=${FAULTS_SINK}`,
        `sink.file=${path.join(dir, `${name}.out`)}`,
        'value.converter=org.apache.kafka.connect.storage.StringConverter',
        'consumer.override.group.protocol=share',
        'share.group.share.auto.offset.reset=earliest',
        // a put of 8 s under a 5 s lock: renewed every 2.5 s, a 'lock renewed' debug line each time
        'share.group.share.record.lock.duration.ms=5000',
        'put.latency.ms=8000',
      ],
    );
    const url = run.url;
    try {
      await until(
        'the connector RUNNING',
        async () =>
          (
            (await (await fetch(`${url}/connectors/${name}/status`)).json()) as {
              connector: { state: string };
            }
          ).connector.state,
        (s) => s === 'RUNNING',
      );
      const connector = `connector.${name}`;
      const before = (await (await fetch(`${url}/admin/loggers`)).json()) as Record<
        string,
        { level: string }
      >;
      expect(before[connector]).toEqual({ level: 'INFO', last_modified: null });
      expect(before[`task.${name}-0`]).toEqual({ level: 'INFO', last_modified: null });
      expect(before['kafka']).toEqual({ level: 'INFO', last_modified: null });

      const put = async (logger: string, level: string) => {
        const res = await fetch(`${url}/admin/loggers/${logger}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ level }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as string[];
      };
      const changedAt = run.stderr().length;
      // the connector's name covers its task's
      expect(await put(connector, 'DEBUG')).toEqual([connector, `task.${name}-0`]);
      // kafka is INFO already: nothing changes by name, but its loggers under the connector go back to INFO
      expect(await put('kafka', 'INFO')).toEqual([]);
      const got = (await (await fetch(`${url}/admin/loggers/${connector}`)).json()) as Record<
        string,
        unknown
      >;
      expect(got).toEqual({ level: 'DEBUG', last_modified: expect.any(Number) });

      await produce(topic, ['a', 'b', 'c']);
      await until(
        "the task's 'lock renewed' debug line",
        () => jsonLines(run.stderr().slice(changedAt)).filter((l) => l['msg'] === 'lock renewed').length,
        (n) => n >= 2,
      );
      const all = jsonLines(run.stderr());
      const debugBefore = jsonLines(run.stderr().slice(0, changedAt)).filter(
        (l) => (l['level'] as number) < 30,
      );
      expect(debugBefore).toEqual([]);
      const debug = all.filter((l) => (l['level'] as number) < 30);
      expect(debug.length).toBeGreaterThanOrEqual(2);
      // every debug line is the connector's own: bound to it, and not from a Kafka client
      for (const line of debug) {
        expect(line['connector']).toBe(name);
        expect(line['component']).toBeUndefined();
      }
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
