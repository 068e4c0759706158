// A connector module the main thread loads and the pool threads cannot: the connector's start fails
// once, naming the module and the threads' reason, instead of each task failing at its first put. On
// the event loop the puts run where the module loads, so the same connector starts. No broker needed:
// a classic-mode start talks to none before its tasks run.
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { closeInstance, startInstance } from '../../../src/actors/connector/instance.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { offlineWorker } from '../../fixtures/offline-worker.js';

const mainThreadOnly = fileURLToPath(
  new URL('../../fixtures/connectors/main-thread-only.ts', import.meta.url),
);
const worker = compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '2' });
const log = pino({ level: 'silent' });

function connector(extra: Record<string, string> = {}) {
  return compileConnectorConfig(
    {
      name: 'main-only',
      'connector.class': mainThreadOnly,
      topics: 'orders',
      'consumer.override.group.protocol': 'classic',
      ...extra,
    },
    worker,
  );
}

describe('startInstance with a connector module only the main thread can load', () => {
  it('fails the start with SHARESINK_CONNECTOR_MODULE_INVALID, naming the module and why', async () => {
    // the instance does not wait for its threads (the tasks join meanwhile): its pool's start fails
    const instance = await startInstance(connector(), worker, log, () => true);
    await expect(instance!.pool.started()).rejects.toMatchObject({
      code: 'SHARESINK_CONNECTOR_MODULE_INVALID',
      message: expect.stringContaining(
        'main-thread-only.ts, which the main thread imported: main-thread-only cannot be imported in a worker thread',
      ) as unknown,
    });
    await closeInstance(instance!);
  }, 30_000);

  it('fails the connector, and Worker.start(), from the pool start, its tasks stopped', async () => {
    const w = offlineWorker('main-only', mainThreadOnly);
    await expect(w.start()).rejects.toMatchObject({
      code: 'SHARESINK_CONNECTOR_MODULE_INVALID',
      message: expect.stringContaining('main-thread-only cannot be imported in a worker thread') as unknown,
    });
    const c = w.connector('main-only')!;
    expect(c.state).toBe('FAILED');
    await w.stop();
  }, 60_000);

  it('starts with put.placement=event-loop, whose puts run on the main thread', async () => {
    const instance = await startInstance(
      connector({ 'put.placement': 'event-loop' }),
      worker,
      log,
      () => true,
    );
    expect(instance?.pool.threads).toBe(0);
    await closeInstance(instance!);
  });
});
