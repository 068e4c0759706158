// The Worker as a service embeds it, without a broker: bad configs and an unreachable cluster reject
// start() with typed errors before anything connects, start() runs once, and task failures and health
// are there to read without the REST server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker, type TaskFailure } from '../../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import type { ConnectorConfig, WorkerConfig } from '../../../src/config/types.js';
import { DataError } from '../../../src/connect/errors.js';
import { ConfigError, isSharesinkError } from '../../../src/errors.js';
import { KafkaUnreachableError } from '../../../src/kafka/errors/cluster-errors.js';

const logger = pino({ level: 'silent' });
const failing = fileURLToPath(new URL('../../fixtures/connectors/failing-connector.ts', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-embed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nothing listens on port 9 here: a start that tried to connect would fail on it, slowly. */
function workerConfig(extra: Record<string, string> = {}): WorkerConfig {
  return compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '1', ...extra });
}

function noop(worker: WorkerConfig, name: string): ConnectorConfig {
  return compileConnectorConfig(
    { name, 'connector.class': 'NoopSink', topics: 'orders', 'consumer.override.group.protocol': 'share' },
    worker,
  );
}

describe('Worker, embedded', () => {
  it('refuses two connectors of one name when it is made', () => {
    const worker = workerConfig();
    const make = () => new Worker({ worker, connectors: [noop(worker, 'a'), noop(worker, 'a')], logger });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow('name: two connectors are named "a"; names must be unique');
  });

  it("lists every connector's own problems in one ConfigError before anything connects", async () => {
    const worker = workerConfig();
    const file = (name: string) =>
      compileConnectorConfig(
        {
          name,
          'connector.class': 'FileStreamSink',
          file: path.join(dir, 'missing', `${name}.txt`),
          topics: 'orders',
          'consumer.override.group.protocol': 'share',
        },
        worker,
      );
    const w = new Worker({ worker, connectors: [file('one'), file('two')], logger });
    const err = await w.start().then(
      () => expect.fail('it started'),
      (e: unknown) => e,
    );
    await w.stop();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problemLines()).toEqual([
      `one: file: directory ${path.join(dir, 'missing')} does not exist; create it or fix the path`,
      `two: file: directory ${path.join(dir, 'missing')} does not exist; create it or fix the path`,
    ]);
  });

  it('rejects start() with KafkaUnreachableError when no broker answers within bootstrap.timeout.ms', async () => {
    const worker = workerConfig({ 'bootstrap.timeout.ms': '0' });
    const w = new Worker({ worker, connectors: [noop(worker, 'unreachable')], logger });
    const err = await w.start().then(
      () => expect.fail('it started'),
      (e: unknown) => e,
    );
    await w.stop();
    expect(err).toBeInstanceOf(KafkaUnreachableError);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_UNREACHABLE' });
    // nothing started: no task ever ran, so none failed
    expect(w.taskFailures).toEqual([]);
    expect(w.connector('unreachable')!.taskStates()).toEqual([]);
  });

  it('starts once: a second start() answers the first; a failure is a SharesinkError naming the connector', async () => {
    const worker = workerConfig();
    const config = compileConnectorConfig(
      { name: 'refused', 'connector.class': failing, topics: 'orders' },
      worker,
    );
    const w = new Worker({ worker, connectors: [config], logger, checkCluster: false });
    const first = w.start();
    expect(w.start()).toBe(first);
    const err = await first.then(
      () => expect.fail('it started'),
      (e: unknown) => e,
    );
    await w.stop();
    expect(isSharesinkError(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'SHARESINK_CONNECTOR_START_FAILED',
      message: expect.stringMatching(/^refused: downstream refused the connector \(start \d+\)$/),
      cause: expect.any(Error),
    });
  });

  it('rejects start() after stop() instead of resolving with nothing running', async () => {
    const worker = workerConfig();
    const w = new Worker({ worker, connectors: [noop(worker, 'late')], logger });
    await w.stop();
    await expect(w.start()).rejects.toMatchObject({ code: 'SHARESINK_WORKER_STOPPED' });
  });

  it('tells onTaskFailed of each failed task and reads health() as GET /health does', async () => {
    const worker = workerConfig();
    const heard: TaskFailure[] = [];
    const w = new Worker({
      worker,
      connectors: [noop(worker, 'watched')],
      logger,
      onTaskFailed: (f) => heard.push(f),
    });
    // a task's failure, as the task slots report it (a real one needs a broker)
    const slots = (
      w.connector('watched') as unknown as {
        slots: { o: { onTaskFailed: (taskId: number, error: string, cause: Error | undefined) => void } };
      }
    ).slots;
    const boom = new DataError('boom');
    slots.o.onTaskFailed(0, 'boom', boom);
    slots.o.onTaskFailed(1, 'a plain error', new TypeError('a plain error'));
    // the code to switch on is the error's own, or SHARESINK_TASK_FAILED for an error that is not sharesink's
    expect(heard).toMatchObject([
      { connector: 'watched', taskId: 0, error: 'boom', code: 'SHARESINK_DATA_INVALID', cause: boom },
      { connector: 'watched', taskId: 1, error: 'a plain error', code: 'SHARESINK_TASK_FAILED' },
    ]);
    expect(w.taskFailures).toEqual(heard);

    // not started: the connector is UNASSIGNED, so the worker is not healthy
    expect(w.health()).toEqual({
      status: 'DOWN',
      connectors: [{ name: 'watched', state: 'UNASSIGNED', tasks: [] }],
      unhealthy: ['watched'],
    });
    await w.stop();
    expect(w.health().unhealthy).toContain('worker (stopping)');
  });
});
