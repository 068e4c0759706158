import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { CUSTOM_LEVELS } from '../../src/logger.js';
import { LogLevels, logLevelsFor } from '../../src/observability/log-levels.js';

/** A root logger at `level` and the JSON lines it writes. */
function rootLogger(level = 'info'): { root: Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _e, done) {
      out.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const root = pino({ level, customLevels: CUSTOM_LEVELS }, stream) as unknown as Logger;
  return { root, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** The runtime's shape: worker, connector runtime, task, the task's kafka client, the pool, rest. */
function runtime(root: Logger) {
  const worker = root.child({ component: 'worker' });
  const connector = worker.child({ connector: 'orders' });
  const task0 = connector.child({ task: 0 });
  const task1 = connector.child({ task: 1 });
  const kafka = task0.child({ groupId: 'g', memberId: 'm' });
  const cluster = kafka.child({ component: 'kafka' });
  const pool = root.child({ component: 'put-pool' });
  const rest = root.child({ component: 'rest' });
  return { worker, connector, task0, task1, kafka, cluster, pool, rest };
}

describe('LogLevels', () => {
  it('names every child by its bindings, with one innermost component', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root, () => 1000);
    runtime(root);
    expect(Object.keys(levels.all())).toEqual([
      'connector',
      'connector.orders',
      'kafka',
      'pool',
      'rest',
      'root',
      'task',
      'task.orders-0',
      'task.orders-1',
      'worker',
    ]);
    expect(levels.all()['root']).toEqual({ level: 'INFO', last_modified: null });
    expect(levels.level('task.orders-0')).toEqual({ level: 'INFO', last_modified: null });
    expect(levels.level('ROOT')).toEqual({ level: 'INFO', last_modified: null });
    expect(levels.level('nope')).toBeUndefined();
  });

  it('a component changes its own loggers only, also the ones under a task', () => {
    const { root, lines } = rootLogger();
    const levels = new LogLevels(root, () => 1000);
    const l = runtime(root);
    expect(levels.setLevel('kafka', 'debug')).toEqual(['kafka']);
    for (const [name, logger] of Object.entries(l)) logger.debug(`from ${name}`);
    expect(lines().map((x) => x['msg'])).toEqual(['from kafka', 'from cluster']);
    expect(levels.level('kafka')).toEqual({ level: 'DEBUG', last_modified: 1000 });
    expect(levels.level('task.orders-0')).toEqual({ level: 'INFO', last_modified: null });
  });

  it('a connector name covers the connector and its tasks and clients, not the worker or the pool', () => {
    const { root, lines } = rootLogger();
    const levels = new LogLevels(root, () => 1000);
    const l = runtime(root);
    // known names below it change with it, as Connect's setAllLevels; a connector's tasks are below it
    expect(levels.setLevel('connector', 'debug')).toEqual([
      'connector',
      'connector.orders',
      'task',
      'task.orders-0',
      'task.orders-1',
    ]);
    expect(levels.setLevel('connector.orders', 'trace')).toEqual([
      'connector.orders',
      'task.orders-0',
      'task.orders-1',
    ]);
    levels.setLevel('connector.orders', 'debug');
    for (const [name, logger] of Object.entries(l)) logger.debug(`from ${name}`);
    expect(lines().map((x) => x['msg'])).toEqual([
      'from connector',
      'from task0',
      'from task1',
      'from kafka',
      'from cluster',
    ]);
  });

  it('the level set last wins for a logger in several named sets', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root);
    const l = runtime(root);
    levels.setLevel('task', 'debug');
    levels.setLevel('kafka', 'warn');
    expect(l.task0.level).toBe('debug');
    expect(l.kafka.level).toBe('warn');
    levels.setLevel('task.orders-0', 'trace');
    expect(l.kafka.level).toBe('trace');
    expect(l.task1.level).toBe('debug');
  });

  it('root sets every logger and reports every name that changed', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root);
    const l = runtime(root);
    levels.setLevel('kafka', 'debug');
    const changed = levels.setLevel('root', 'warn');
    expect(changed).toContain('root');
    expect(changed).toContain('kafka');
    expect(Object.values(l).map((x) => x.level)).toEqual(Array(8).fill('warn'));
    // a second identical PUT changes nothing
    expect(levels.setLevel('root', 'warn')).toEqual([]);
  });

  it('children made later take the level of their names, including names set before they existed', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root);
    expect(levels.setLevel('connector.later', 'debug')).toEqual(['connector.later']);
    const worker = root.child({ component: 'worker' });
    const connector = worker.child({ connector: 'later' });
    const task = connector.child({ task: 0 });
    const other = worker.child({ connector: 'other' });
    // a name first seen now reports the level of the name that covers it
    expect(levels.level('task.later-0')).toEqual({ level: 'DEBUG', last_modified: null });
    expect(levels.level('task.other-0')).toBeUndefined();
    expect(connector.level).toBe('debug');
    expect(task.level).toBe('debug');
    expect(other.level).toBe('info');
    expect(worker.level).toBe('info');
  });

  it('leaves loggers the code made with a level of their own, and their children, alone', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root);
    const quiet = root.child({ component: 'preflight' }).child({ broker: 'b:9092' }, { level: 'silent' });
    const underQuiet = quiet.child({ nodeId: 1 });
    levels.setLevel('root', 'debug');
    levels.setLevel('kafka', 'trace');
    expect(quiet.level).toBe('silent');
    expect(underQuiet.level).toBe('silent');
  });

  it('reads Connect level names, notice only where the logger has it', () => {
    const { root } = rootLogger();
    const levels = new LogLevels(root);
    expect(levels.pinoLevel('debug')).toBe('debug');
    expect(levels.pinoLevel('OFF')).toBe('silent');
    expect(levels.pinoLevel('ALL')).toBe('trace');
    expect(levels.pinoLevel('Notice')).toBe('notice');
    expect(levels.pinoLevel('verbose')).toBeUndefined();
    const plain = new LogLevels(pino({ level: 'info' }) as unknown as Logger);
    expect(plain.pinoLevel('NOTICE')).toBeUndefined();
    levels.setLevel('rest', 'silent');
    expect(levels.level('rest')?.level).toBe('OFF');
  });

  it('logLevelsFor keeps one registry per root logger', () => {
    const { root } = rootLogger();
    expect(logLevelsFor(root)).toBe(logLevelsFor(root));
  });
});

describe('public API', () => {
  it('exports logLevelsFor for embedders who make the root logger themselves', async () => {
    const api = await import('../../src/index.js');
    const { root } = rootLogger();
    expect(api.logLevelsFor(root)).toBeInstanceOf(api.LogLevels);
    // the whole package's module graph loads here: slow on a busy machine
  }, 60_000);
});

describe('per-batch children', () => {
  it('are not tracked, follow their task logger, and their own children still get names', () => {
    const { root, lines } = rootLogger();
    const levels = new LogLevels(root);
    const { task0, pool } = runtime(root);
    const batch = task0.child({ batchId: 'orders-0-1' });
    const underPool = pool.child({ batchId: 'b' }).child({ attempt: 1 });
    levels.setLevel('task.orders-0', 'debug');
    expect(batch.level).toBe('debug');
    batch.debug('renewed');
    levels.setLevel('task.orders-0', 'warn');
    expect(batch.level).toBe('warn');
    // a kafka client made under a batch child is `kafka`; a plain child under the pool's stays `pool`
    const client = batch.child({ component: 'kafka' });
    levels.setLevel('kafka', 'trace');
    expect(client.level).toBe('trace');
    expect(batch.level).toBe('warn');
    levels.setLevel('pool', 'error');
    expect(underPool.level).toBe('error');
    expect(lines().map((l) => l['msg'])).toEqual(['renewed']);
  });
});
