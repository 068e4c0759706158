// A connector stopped over REST before the worker starts is never started (no broker needed: the
// bootstrap address answers nothing), stays STOPPED with no tasks, and the worker still stops cleanly.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Worker } from '../../../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../../src/config/index.js';
import { startRestServer } from '../../../../src/rest/server/server.js';

describe('PUT /connectors/{name}/stop before the worker starts', () => {
  it('keeps the connector STOPPED through Worker.start(); shutdown still works', async () => {
    const worker = compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '1' });
    const connector = compileConnectorConfig(
      {
        name: 'early',
        'connector.class': 'NoopSink',
        topics: 'orders',
        'consumer.override.group.protocol': 'share',
      },
      worker,
    );
    const logger = pino({ level: 'silent' });
    const w = new Worker({ worker, connectors: [connector], logger });
    const rest = await startRestServer(w, { listener: 'http://127.0.0.1:0', logger, lookupClusterId: false });
    const status = async () =>
      (await (await fetch(`${rest.url}/connectors/early/status`)).json()) as {
        connector: { state: string };
        tasks: unknown[];
      };
    try {
      expect((await fetch(`${rest.url}/connectors/early/stop`, { method: 'PUT' })).status).toBe(202);
      expect(await status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });
      // starting would try to reach 127.0.0.1:9 and fail; a stopped connector is not started at all
      await w.start();
      expect(await status()).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });
      expect(w.connector('early')!.actors.connector.getSnapshot().value).toBe('halted');
      expect((await fetch(`${rest.url}/health`)).status).toBe(200);
    } finally {
      await rest.close();
      await w.stop();
    }
    expect(w.connector('early')!.actors.connector.getSnapshot().status).toBe('done');
    expect(w.summary().connectors[0]).toMatchObject({ tasks: [], counters: {} });
  });
});
