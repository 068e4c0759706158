// connector.client.config.override.policy as a user meets it: `sharesink standalone` refuses a
// connector file that overrides what the worker's policy forbids (exit code 2, every key named with
// the policy and the fix), and a worker whose Allowlist lets the share switch through starts its
// connector on the real broker and lists each refused key in the validate endpoint's answer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli, startRestCli } from './harness/cli.js';
import { createTopic, deleteTopics, testBrokers, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-override-policy-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

interface ConfigInfos {
  error_count: number;
  configs: Array<{ definition: { name: string }; value: { name: string; errors: string[] } }>;
}

describe('connector.client.config.override.policy (real CLI, real broker)', () => {
  it('standalone refuses a connector that overrides what None forbids: exit 2, every key named', async () => {
    const name = uniqueGroup('policy-none');
    const topic = uniqueTopic('policy-none');
    await createTopic(topic, { partitions: 1 });
    topics.push(topic);
    const w = path.join(dir, `${name}-worker.properties`);
    const c = path.join(dir, `${name}.properties`);
    writeFileSync(
      w,
      [`bootstrap.servers=${testBrokers()}`, 'connector.client.config.override.policy=None'].join('\n'),
    );
    writeFileSync(
      c,
      [
        `name=${name}`,
        'connector.class=NoopSink',
        `topics=${topic}`,
        'consumer.override.group.protocol=share',
        'share.group.share.record.lock.duration.ms=20000',
        'tasks.max=1',
      ].join('\n'),
    );
    const run = startCli(['standalone', w, c]);
    expect(await run.exited).toBe(2);
    const lines = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('  - '));
    expect(lines).toEqual([
      `  - ${c}: consumer.override.group.protocol: the worker's connector.client.config.override.policy=None does not allow connectors to override the consumer setting group.protocol; remove consumer.override.group.protocol from the connector file; or set consumer.group.protocol in the worker file (the default for every connector); or allow it in the worker file: connector.client.config.override.policy=Allowlist with connector.client.config.override.allowlist=group.protocol, or connector.client.config.override.policy=All`,
      `  - ${c}: share.group.share.record.lock.duration.ms: the worker's connector.client.config.override.policy=None does not allow connectors to override the share-group setting share.record.lock.duration.ms; remove share.group.share.record.lock.duration.ms from the connector file; or allow it in the worker file: connector.client.config.override.policy=Allowlist with connector.client.config.override.allowlist=share.record.lock.duration.ms, or connector.client.config.override.policy=All`,
    ]);
    expect(run.stderr()).toContain('Invalid configuration (2 problems)');
  });

  it('an Allowlist that lets the share switch through starts the connector; validate lists what it refuses', async () => {
    const name = uniqueGroup('policy-allow');
    const topic = uniqueTopic('policy-allow');
    await createTopic(topic, { partitions: 1 });
    topics.push(topic);
    const run = await startRestCli(dir, name, topic, [
      'connector.client.config.override.policy=Allowlist',
      'connector.client.config.override.allowlist=group.protocol,share.auto.offset.reset',
    ]);
    try {
      // the REST API answers before the connector has started
      const state = await until(
        'the connector RUNNING',
        async () =>
          (
            (await (await fetch(`${run.url}/connectors/${name}/status`)).json()) as {
              connector: { state: string };
            }
          ).connector.state,
        (s) => s === 'RUNNING',
      );
      expect(state).toBe('RUNNING');

      const res = await fetch(`${run.url}/connector-plugins/NoopSink/config/validate`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'candidate',
          'connector.class': 'NoopSink',
          topics: topic,
          'consumer.override.group.protocol': 'share',
          'consumer.override.group.id': 'someone-elses-group',
          'consumer.override.max.poll.records': '10',
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as ConfigInfos;
      expect(body.error_count).toBe(2);
      const refused = body.configs.filter((cfg) => cfg.value.errors.length > 0);
      expect(refused.map((cfg) => cfg.value.name).sort()).toEqual([
        'consumer.override.group.id',
        'consumer.override.max.poll.records',
      ]);
      for (const cfg of refused) {
        expect(cfg.definition.name).toBe(cfg.value.name);
        expect(cfg.value.errors[0]).toContain(
          "the worker's connector.client.config.override.policy=Allowlist does not allow connectors to override",
        );
        expect(cfg.value.errors[0]).toContain('(the allowlist is group.protocol,share.auto.offset.reset)');
      }
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
