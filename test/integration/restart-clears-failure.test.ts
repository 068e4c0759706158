// A task that failed and was restarted successfully over REST no longer counts as failed: /health is UP
// and SIGTERM ends `sharesink standalone` with exit code 0 (it said 1, as if the task were still down).
// Against the real broker, in share mode and in classic mode.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestCli } from './harness/cli.js';
import { createTopic, deleteTopics, produce, uniqueTopic } from './harness/kafka.js';
import { api } from './harness/rest-client.js';
import { readEvents } from '../fixtures/connectors/shared.js';
import { until } from './harness/wait.js';

const FAILS_ONCE = fileURLToPath(new URL('../fixtures/connectors/fails-once.ts', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-restart-clears-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

interface Status {
  tasks: Array<{ id: number; state: string; trace?: string }>;
}

describe.each(['share', 'classic'] as const)('a task restarted over REST (%s mode)', (mode) => {
  it('counts as healthy again: /health UP, and SIGTERM exits 0', async () => {
    const topic = uniqueTopic(`valid-restart-${mode}`);
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const name = `valid-restart-${mode}`;
    const events = path.join(dir, `${name}.events`);
    const run = await startRestCli(
      dir,
      name,
      topic,
      [],
      [
        `connector.class=${FAILS_ONCE}`,
        `consumer.override.group.protocol=${mode}`,
        mode === 'share'
          ? 'share.group.share.auto.offset.reset=earliest'
          : 'consumer.override.auto.offset.reset=earliest',
        `fail.once.file=${path.join(dir, `${name}.failed`)}`,
        `events.file=${events}`,
        'key.converter=org.apache.kafka.connect.storage.StringConverter',
        'value.converter=org.apache.kafka.connect.storage.StringConverter',
      ],
    );
    try {
      const status = async () => (await api(run.url, 'GET', `/connectors/${name}/status`)).json as Status;
      await produce(topic, ['a', 'b', 'c']);
      await until('the task to fail', status, (s) => s.tasks[0]?.state === 'FAILED');
      expect((await api(run.url, 'GET', '/health')).status).toBe(503);

      expect((await api(run.url, 'POST', `/connectors/${name}/tasks/0/restart`)).status).toBe(204);
      await until('the restarted task to run', status, (s) => s.tasks[0]?.state === 'RUNNING');
      // it works again: a record produced now is put
      await produce(topic, ['d']);
      await until(
        'a put after the restart',
        () => readEvents(events).length,
        (n) => n > 0,
      );
      const health = await api(run.url, 'GET', '/health');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({ status: 'UP', unhealthy: [] });

      run.child.kill('SIGTERM');
      expect(await run.exited, run.stderr().slice(-3000)).toBe(0);
      expect(run.stderr()).toContain('task restarted and running; its failure is cleared');
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
