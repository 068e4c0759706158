import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { loadConnectorModule, resolveConnectorModule } from '../../../src/connect/connector-module.js';
import { SinkRecord } from '../../../src/connect/sink-record.js';
import { NoopSinkConnector, NoopSinkTask } from '../../../src/sinks/noop/index.js';

const rec = (offset: number): SinkRecord =>
  new SinkRecord({
    topic: 't',
    partition: 0,
    offset,
    timestamp: 0,
    timestampType: 'CreateTime',
    key: null,
    value: 'v',
  });

describe('NoopSink', () => {
  it('counts records and puts', async () => {
    const task = new NoopSinkTask();
    task.start({});
    await task.put([rec(0), rec(1)]);
    await task.put([rec(2)]);
    expect(task.recordCount).toBe(3);
    expect(task.putCount).toBe(2);
  });

  it('takes latency.ms per put', async () => {
    const task = new NoopSinkTask();
    task.start({ 'latency.ms': '60' });
    const began = performance.now();
    await task.put([rec(0)]);
    expect(performance.now() - began).toBeGreaterThanOrEqual(55);
  });

  it('validates latency.ms', () => {
    expect(() => new NoopSinkTask().start({ 'latency.ms': '-1' })).toThrow(ConfigError);
    expect(new NoopSinkConnector().validate({ 'latency.ms': 'soon' }).get('latency.ms')).toEqual([
      expect.stringContaining('latency.ms: "soon" is not an integer'),
    ]);
  });

  it('splits into identical task configs and loads by its short names', async () => {
    const connector = new NoopSinkConnector();
    connector.start({ 'latency.ms': '5' });
    expect(connector.taskConfigs(2)).toEqual([{ 'latency.ms': '5' }, { 'latency.ms': '5' }]);
    const module = await loadConnectorModule(resolveConnectorModule('noop'));
    expect(module.task).toBe(NoopSinkTask);
  });
});
