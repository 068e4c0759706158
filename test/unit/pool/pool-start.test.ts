// What PutPool.started() answers: a connector module the main thread loads and the pool threads
// cannot fails the start, once and with the thread's reason, rather than each task at its first put;
// and a process awaiting nothing but the start stays alive until it is answered.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConnectorModule } from '../../../src/connect/connector-module.js';
import { readEvents } from '../../fixtures/connectors/shared.js';
import { fixture, records, usePools } from './pool-harness.js';

const { pool, task } = usePools();
const ROOT = path.resolve(import.meta.dirname, '../../..');
const CHILD = path.join(import.meta.dirname, 'pool-start-child.ts');

describe('PutPool.started() and the connector module', () => {
  it('rejects with SHARESINK_CONNECTOR_MODULE_INVALID, naming the module and why, when the threads cannot import it', async () => {
    // the main thread imports it: only the threads fail
    await loadConnectorModule(fixture('main-thread-only').href);
    const p = pool('main-thread-only', 2);
    const failure = {
      code: 'SHARESINK_CONNECTOR_MODULE_INVALID',
      message: expect.stringMatching(
        /worker threads cannot import the connector module .*main-thread-only\.ts, which the main thread imported: main-thread-only cannot be imported in a worker thread$/,
      ) as unknown,
    };
    await expect(p.started(20_000)).rejects.toMatchObject(failure);
    // asked again, as a start asks late, it answers at once rather than waiting for its timeout
    const began = Date.now();
    await expect(p.started(20_000)).rejects.toMatchObject(failure);
    expect(Date.now() - began).toBeLessThan(1_000);
  }, 30_000);

  it('rejects for a module without the connector shape', async () => {
    const p = pool('not-a-connector');
    await expect(p.started(20_000)).rejects.toMatchObject({
      code: 'SHARESINK_CONNECTOR_MODULE_INVALID',
      message: expect.stringContaining('not-a-connector.ts must have a default export') as unknown,
    });
  }, 30_000);

  it('remembers a thread that could not boot: a start that asks after it failed is answered at once', async () => {
    const p = pool('ok', 1, { execArgv: ['--import', 'no-such-package-sharesink-test'] });
    // a connector's start asks only after its broker round trips, by when the thread has long failed
    await sleep(1_500);
    const began = Date.now();
    await expect(p.started(20_000)).rejects.toMatchObject({
      code: 'SHARESINK_POOL_START_FAILED',
      message: expect.stringContaining('no-such-package-sharesink-test') as unknown,
    });
    expect(Date.now() - began).toBeLessThan(1_000);
  }, 30_000);

  it('loads the module once per thread: while the thread boots, not again at its first puts', async () => {
    // how many looks at the module one load takes, on this thread
    const { looksSoFar } = (await import(fixture('counted-loads').href)) as { looksSoFar: () => number };
    const before = looksSoFar();
    await loadConnectorModule(fixture('counted-loads').href);
    const oneLoad = looksSoFar() - before;
    expect(oneLoad).toBeGreaterThan(0);

    const p = pool('counted-loads', 1);
    await p.started();
    const [a, b] = [task(), task()];
    expect(await p.put(a, records(['a']))).toMatchObject({ kind: 'ok', taskStarted: true });
    expect(await p.put(b, records(['b']))).toMatchObject({ kind: 'ok', taskStarted: true });
    const looks = [a, b].map((t) => readEvents(t.events).find((e) => e.event === 'looks')?.['looks']);
    expect(looks).toEqual([oneLoad, oneLoad]);
  });

  it('rejects a start still waiting when the pool is closed, instead of waiting out its timeout', async () => {
    const p = pool('slow-import', 1);
    const starting = expect(p.started(20_000)).rejects.toMatchObject({
      code: 'SHARESINK_POOL_START_FAILED',
      message: expect.stringContaining('closed') as unknown,
    });
    await p.close();
    await starting;
    await expect(p.started(20_000)).rejects.toMatchObject({ code: 'SHARESINK_POOL_START_FAILED' });
  });
});

describe('PutPool.started() keeps the process alive until it settles', () => {
  /** The child's stdout, whatever its exit code. */
  async function child(connector: string): Promise<string> {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, connector], {
        cwd: ROOT,
        timeout: 30_000,
      });
      return stdout;
    } catch (error) {
      return (error as { stdout?: string }).stdout ?? String(error);
    }
  }

  it('resolves in a process that awaits nothing else, while the threads import a slow module', async () => {
    expect(await child('slow-import')).toBe('started\nexit 0\n');
  }, 40_000);

  it('rejects there too, with the reason', async () => {
    expect(await child('main-thread-only')).toBe(
      'start rejected: SHARESINK_CONNECTOR_MODULE_INVALID\nexit 0\n',
    );
  }, 40_000);
});
