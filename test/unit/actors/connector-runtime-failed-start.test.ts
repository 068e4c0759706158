// A connector whose own start() fails, without a broker: the machine holds it FAILED with the error as
// the trace, an operator restart runs a fresh start (the connector's start() again), and shutdown from
// FAILED goes through `stopping` and ends the machine.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { offlineWorker } from '../../fixtures/offline-worker.js';

const fixture = fileURLToPath(new URL('../../fixtures/connectors/failing-connector.ts', import.meta.url));

describe('ConnectorRuntime: a connector that fails to start', () => {
  it('is FAILED with its error; restart starts it afresh; shutdown ends the machine', async () => {
    // no broker here: the connector's own start() is what fails, not the cluster check
    const w = offlineWorker('failing', fixture);
    const c = w.connector('failing')!;
    await expect(w.start()).rejects.toThrow('downstream refused the connector (start 1)');
    expect(c.state).toBe('FAILED');
    expect(c.error).toBe('downstream refused the connector (start 1)');
    expect(c.taskConfigs).toEqual([]);
    expect(c.poolThreads).toBe(0);

    expect(c.restart({ onlyFailed: true })).toEqual({ connector: true, tasks: [] });
    await expect.poll(() => c.error, { timeout: 5_000 }).toBe('downstream refused the connector (start 2)');
    expect(c.state).toBe('FAILED');

    await w.stop();
    const machine = c.actors.connector.getSnapshot();
    expect(machine.value).toBe('stopped');
    expect(machine.status).toBe('done');
  });
});
