// Connect's STOPPED state (KIP-875) over REST against the real broker: PUT .../stop shuts the tasks down
// as a graceful stop does (share members leave the group, classic offsets are committed), keeps the
// connector registered with no tasks, consumes nothing while stopped, and resume (or pause) starts it
// again with every record arriving exactly once. Also: the worker still shuts down on SIGTERM.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  committedAndEndOffsets,
  createTopic,
  deleteTopics,
  produce,
  runJavaToolOk,
  testBrokers,
  Tools,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { startRestCli } from './harness/cli.js';
import { startLinesWorker } from './harness/rest.js';
import { lines, metric, sleep, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-rest-stop-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const sorted = (xs: readonly string[]) => [...xs].sort();

/** Members of a share group, as `kafka-share-groups --describe --members` lists them. */
async function shareGroupMembers(group: string): Promise<number> {
  const { stdout } = await runJavaToolOk(Tools.ShareGroupCommand, [
    '--bootstrap-server',
    testBrokers(),
    '--describe',
    '--members',
    '--group',
    group,
  ]);
  return stdout.split('\n').filter((l) => l.trim().split(/\s+/)[0] === group).length;
}

interface Status {
  connector: { state: string };
  tasks: Array<{ id: number; state: string }>;
}

function restClient(base: string, name: string) {
  const call = (method: string, p: string) => fetch(`${base}${p}`, { method });
  return {
    call,
    put: async (action: 'stop' | 'resume' | 'pause') =>
      (await call('PUT', `/connectors/${name}/${action}`)).status,
    status: async () => (await (await call('GET', `/connectors/${name}/status`)).json()) as Status,
    json: async (p: string) => (await (await call('GET', p)).json()) as unknown,
    metrics: async () => (await call('GET', '/metrics')).text(),
  };
}

describe('PUT /connectors/{name}/stop (KIP-875) on a running worker', () => {
  it('share mode: stops the tasks and leaves the group, consumes nothing while STOPPED, resume and pause start it again', async () => {
    const topic = uniqueTopic('rest-stop');
    const group = uniqueGroup('rest-stop');
    topics.push(topic);
    await createTopic(topic, { partitions: 3 });
    const file = path.join(dir, 'share-lines.txt');
    const name = 'rest-stop-share';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'share', tasks: 2, poolThreads: 2, logger },
      worker: { listeners: 'http://127.0.0.1:0', 'task.shutdown.graceful.timeout.ms': '2000' },
      rest: { lookupClusterId: false },
    });
    const api = restClient(rest.url, name);
    try {
      await w.start();
      await produce(topic, values('a', 200));
      await until(
        '200 lines',
        () => lines(file).length,
        (n) => n >= 200,
      );
      // the two tasks read through one member (share.member.scope=connector, ADR 0012)
      await until(
        'the member',
        () => shareGroupMembers(group),
        (n) => n === 1,
        30_000,
      );

      // stop: 202 once the tasks and the instance have stopped
      expect(await api.put('stop')).toBe(202);
      expect(await api.status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });
      expect(await api.json(`/connectors/${name}/tasks`)).toEqual([]);
      expect(await api.json(`/connectors/${name}`)).toMatchObject({ name, tasks: [] });
      expect(await api.json(`/connectors/${name}/config`)).toMatchObject({ topics: topic });
      expect(await api.json('/connectors')).toEqual([name]);
      expect(w.inFlight).toBe(0);
      // the graceful stop acknowledged everything it put and the member left the group
      expect(await shareGroupMembers(group)).toBe(0);
      expect(w.summary().connectors[0]!.counters.recordsAccepted).toBe(200);
      const stoppedMetrics = await api.metrics();
      expect(stoppedMetrics).toContain(`sharesink_connector_state{connector="${name}",state="STOPPED"} 1`);
      expect(stoppedMetrics).not.toContain(`sharesink_task_state{connector="${name}"`);
      expect(w.actorCensus.counts()['connector']).toEqual({ halted: 1 });
      expect((await api.call('GET', '/health')).status).toBe(200);
      expect((await api.call('GET', '/machines')).status).toBe(200);

      // records produced while STOPPED are not consumed
      await produce(topic, values('s', 100));
      await sleep(3000);
      expect(sorted(lines(file))).toEqual(sorted(values('a', 200)));
      expect(await shareGroupMembers(group)).toBe(0);

      // stopping again and restarting change nothing
      expect(await api.put('stop')).toBe(202);
      expect((await api.call('POST', `/connectors/${name}/restart`)).status).toBe(204);
      expect(await api.status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });

      // resume: a new instance and member; every record arrives exactly once
      expect(await api.put('resume')).toBe(202);
      const resumed = await api.status();
      expect(resumed.connector.state).toBe('RUNNING');
      expect(resumed.tasks.map((t) => t.state)).toEqual(['RUNNING', 'RUNNING']);
      expect(await api.json(`/connectors/${name}/tasks`)).toHaveLength(2);
      await until(
        '300 lines',
        () => lines(file).length,
        (n) => n >= 300,
      );
      await sleep(1000);
      expect(sorted(lines(file))).toEqual(sorted([...values('a', 200), ...values('s', 100)]));
      // counters go on from before the stop
      await until(
        'accepted counts 300',
        async () =>
          metric(await api.metrics(), 'sharesink_task_records_accepted_total', `connector="${name}"`),
        (n) => n === 300,
      );

      // pause of a STOPPED connector: PAUSED, tasks created paused, nothing fetched until resumed
      expect(await api.put('stop')).toBe(202);
      expect(await api.put('pause')).toBe(202);
      const paused = await api.status();
      expect(paused.connector.state).toBe('PAUSED');
      expect(paused.tasks.map((t) => t.state)).toEqual(['PAUSED', 'PAUSED']);
      const putsBefore = metric(await api.metrics(), 'sharesink_task_puts_total', `connector="${name}"`);
      await produce(topic, values('q', 50));
      await sleep(3000);
      expect(lines(file)).toHaveLength(300);
      expect(metric(await api.metrics(), 'sharesink_task_puts_total', `connector="${name}"`)).toBe(
        putsBefore,
      );
      expect(await api.put('resume')).toBe(202);
      await until(
        '350 lines',
        () => lines(file).length,
        (n) => n >= 350,
      );
      await sleep(1000);
      expect(sorted(lines(file))).toEqual(
        sorted([...values('a', 200), ...values('s', 100), ...values('q', 50)]),
      );

      // stopped once more, the worker still shuts down and the summary still counts every record
      expect(await api.put('stop')).toBe(202);
    } finally {
      await rest.close();
      await w.stop();
    }
    const summary = w.summary().connectors[0]!;
    expect(summary.tasks).toEqual([]);
    expect(summary.counters.recordsAccepted).toBe(350);
    expect(summary.counters.recordsAcquired).toBeGreaterThanOrEqual(350);
  });

  it('classic mode: stop commits the offsets, nothing is consumed while STOPPED, resume delivers the rest once', async () => {
    const topic = uniqueTopic('rest-stop-classic');
    const group = uniqueGroup('rest-stop-classic');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'classic-lines.txt');
    const name = 'rest-stop-classic';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'classic', tasks: 1, poolThreads: 1, logger },
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    const api = restClient(rest.url, name);
    try {
      await w.start();
      await produce(topic, values('c', 60));
      await until(
        '60 lines',
        () => lines(file).length,
        (n) => n >= 60,
      );

      expect(await api.put('stop')).toBe(202);
      expect(await api.status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });
      // the stop committed what was put, so nothing is owed to the group
      const atStop = await committedAndEndOffsets(group, topic);
      expect(atStop.committed).toEqual(atStop.end);
      expect(atStop.end.reduce((a, b) => a + b, 0)).toBe(60);

      await produce(topic, values('d', 40));
      await sleep(3000);
      expect(sorted(lines(file))).toEqual(sorted(values('c', 60)));

      expect(await api.put('resume')).toBe(202);
      expect((await api.status()).tasks.map((t) => t.state)).toEqual(['RUNNING']);
      await until(
        '100 lines',
        () => lines(file).length,
        (n) => n >= 100,
      );
      await sleep(1000);
      expect(sorted(lines(file))).toEqual(sorted([...values('c', 60), ...values('d', 40)]));
    } finally {
      await rest.close();
      await w.stop();
    }
    const after = await committedAndEndOffsets(group, topic);
    expect(after.committed).toEqual(after.end);
  });

  it('sharesink standalone stops gracefully on SIGTERM with a STOPPED connector (exit 0)', async () => {
    const topic = uniqueTopic('rest-stop-cli');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const { child, stderr: logs, exited, url } = await startRestCli(dir, 'stop-cli', topic);
    try {
      const api = restClient(url, 'stop-cli');
      await until('running', api.status, (s) => s.connector.state === 'RUNNING' && s.tasks.length === 1);
      expect(await api.put('stop')).toBe(202);
      expect(await api.status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });
      child.kill('SIGTERM');
      expect(await exited, logs()).toBe(0);
      expect(logs()).toContain('connector stopped on request');
      expect(logs()).toContain('REST server stopped');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
