// /connector-plugins on a running `sharesink standalone` (real CLI, real broker) whose connector is a
// module path: the module is listed with its own version beside the built-ins, its settings answer
// /config, validate loads it (it runs here), and connectorsOnly=false adds the other plugin types.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestCli } from './harness/cli.js';
import { createTopic, deleteTopics, uniqueGroup, uniqueTopic } from './harness/kafka.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-plugins-'));
const topics: string[] = [];
const FAULTS_SINK = new URL('../fixtures/connectors/faults-sink.ts', import.meta.url).href;

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

type Plugin = { class: string; type: string; version: string };

describe('/connector-plugins on a running worker', () => {
  it('lists the running module connector, answers its /config and validates with it', async () => {
    const name = uniqueGroup('plugins');
    const topic = uniqueTopic('plugins');
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
        'consumer.override.group.protocol=share',
      ],
    );
    const url = run.url;
    try {
      const get = async (p: string) => {
        const res = await fetch(`${url}${p}`);
        return { status: res.status, json: (await res.json()) as unknown };
      };
      const plugins = (await get('/connector-plugins')).json as Plugin[];
      expect(plugins).toContainEqual({ class: FAULTS_SINK, type: 'sink', version: 'fixture' });
      expect(plugins).toContainEqual(
        expect.objectContaining({ class: 'org.apache.kafka.connect.file.FileStreamSinkConnector' }),
      );
      expect(new Set(plugins.map((p) => p.type))).toEqual(new Set(['sink']));

      const all = (await get('/connector-plugins?connectorsOnly=false')).json as Plugin[];
      expect(new Set(all.map((p) => p.type))).toEqual(
        new Set(['sink', 'converter', 'header_converter', 'transformation', 'predicate']),
      );

      // the fixture declares no settings of its own: an empty list, not a 404
      expect(await get(`/connector-plugins/${encodeURIComponent(FAULTS_SINK)}/config`)).toEqual({
        status: 200,
        json: [],
      });
      expect((await get('/connector-plugins/NoopSink/config')).status).toBe(200);

      const res = await fetch(`${url}/connector-plugins/${encodeURIComponent(FAULTS_SINK)}/config/validate`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'candidate', topics: topic, 'tasks.max': 'two' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        name: string;
        error_count: number;
        configs: Array<{ value: { name: string; errors: string[] } }>;
      };
      expect(body.name).toBe(FAULTS_SINK);
      expect(body.error_count).toBe(1);
      expect(body.configs.find((x) => x.value.name === 'tasks.max')?.value.errors).toHaveLength(1);
      // loaded: no complaint under connector.class
      expect(body.configs.find((x) => x.value.name === 'connector.class')?.value.errors).toEqual([]);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
