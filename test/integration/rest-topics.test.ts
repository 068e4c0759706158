// KIP-558 on a standalone worker with real connectors: GET /connectors/{name}/topics answers the topics
// the tasks have put records of (not the configured ones), in share mode with a topics list and in
// classic mode with topics.regex; a reset empties the set and it fills again; a stop keeps it. The
// worker settings turn the endpoints off with Connect's 403s.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { startRestServer } from '../../src/rest/server/server.js';
import { api } from './harness/rest-client.js';
import { LINES_CONNECTOR } from './harness/rest.js';
import {
  createTopic,
  deleteTopics,
  produce,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { lines, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-topics-'));
const logger = pino({ level: 'warn' });
const made: string[] = [];

afterAll(async () => {
  if (made.length > 0) await deleteTopics(made);
});

async function topicsOf(prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const t of names) await createTopic(t, { partitions: 1 });
  made.push(...names);
  return names;
}

function lineConnector(name: string, file: string, settings: Record<string, string>) {
  return {
    name,
    'connector.class': LINES_CONNECTOR,
    'tasks.max': '1',
    'lines.file': file,
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'consumer.override.group.id': uniqueGroup(name),
    ...settings,
  };
}

describe('active topics (KIP-558), standalone', () => {
  it('answers the topics records were put from, per connector; reset empties them; a stop keeps them', async () => {
    const [t0, t1] = await topicsOf(uniqueTopic('kip558-list'), 2);
    const rx = uniqueTopic('kip558-rx');
    const [rx0] = await topicsOf(rx, 2);
    const worker = compileWorkerConfig({
      'bootstrap.servers': testBrokers(),
      'pool.threads': '1',
      listeners: 'http://127.0.0.1:0',
    });
    const listedFile = path.join(dir, 'listed.txt');
    const regexFile = path.join(dir, 'regex.txt');
    const connectors = [
      lineConnector('listed', listedFile, {
        topics: `${t0},${t1}`,
        'consumer.override.group.protocol': 'share',
        'share.group.share.auto.offset.reset': 'earliest',
      }),
      lineConnector('regex', regexFile, {
        'topics.regex': `${rx}-.*`,
        'consumer.override.group.protocol': 'classic',
        'consumer.override.auto.offset.reset': 'earliest',
      }),
    ].map((c) => compileConnectorConfig(c, worker));
    const w = new Worker({ worker, connectors, logger });
    const rest = await startRestServer(w, { logger, lookupClusterId: false });
    const topics = async (name: string) =>
      (
        (await api(rest.url, 'GET', `/connectors/${name}/topics`)).json as Record<
          string,
          { topics: string[] }
        >
      )[name]!.topics;
    try {
      await w.start();
      // nothing put yet: no active topic, although two are configured
      expect(await topics('listed')).toEqual([]);
      await produce(t0!, ['a', 'b', 'c']);
      await produce(rx0!, ['x', 'y']);
      await until(
        '3 listed lines',
        () => lines(listedFile).length,
        (n) => n >= 3,
      );
      await until(
        '2 regex lines',
        () => lines(regexFile).length,
        (n) => n >= 2,
      );
      expect(await topics('listed')).toEqual([t0]);
      expect(await topics('regex')).toEqual([rx0]);

      expect(await api(rest.url, 'PUT', '/connectors/listed/topics/reset')).toEqual({
        status: 202,
        json: undefined,
      });
      expect(await topics('listed')).toEqual([]);
      expect(await topics('regex')).toEqual([rx0]);
      await produce(t1!, ['d']);
      await until(
        '4 listed lines',
        () => lines(listedFile).length,
        (n) => n >= 4,
      );
      expect(await topics('listed')).toEqual([t1]);

      // Connect keeps a stopped connector's active topics
      expect((await api(rest.url, 'PUT', '/connectors/listed/stop')).status).toBe(202);
      expect(await topics('listed')).toEqual([t1]);
      expect((await api(rest.url, 'GET', '/connectors/nope/topics')).status).toBe(404);
    } finally {
      await rest.close();
      await w.stop();
    }
  });

  it("topic.tracking.enable=false and topic.tracking.allow.reset=false answer Connect's 403s", async () => {
    const answers = async (settings: Record<string, string>) => {
      const worker = compileWorkerConfig({
        'bootstrap.servers': testBrokers(),
        'pool.threads': '1',
        listeners: 'http://127.0.0.1:0',
        ...settings,
      });
      const connector = compileConnectorConfig(
        lineConnector('quiet', path.join(dir, 'quiet.txt'), { topics: 'never-created' }),
        worker,
      );
      // not started: the endpoints answer from the worker settings and the connector's set
      const w = new Worker({ worker, connectors: [connector], logger });
      const rest = await startRestServer(w, { logger, lookupClusterId: false });
      try {
        return [
          await api(rest.url, 'GET', '/connectors/quiet/topics'),
          await api(rest.url, 'PUT', '/connectors/quiet/topics/reset'),
        ];
      } finally {
        await rest.close();
      }
    };
    const off = await answers({ 'topic.tracking.enable': 'false' });
    for (const a of off)
      expect(a).toMatchObject({
        status: 403,
        json: { error_code: 403, message: expect.stringMatching(/^Topic tracking is disabled\./) },
      });
    const [read, reset] = await answers({ 'topic.tracking.allow.reset': 'false' });
    expect(read).toEqual({ status: 200, json: { quiet: { topics: [] } } });
    expect(reset).toMatchObject({
      status: 403,
      json: { error_code: 403, message: expect.stringMatching(/^Topic tracking reset is disabled\./) },
    });
  });
});
