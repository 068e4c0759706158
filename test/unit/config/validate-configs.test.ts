// One call validates a worker and its connectors completely, without a broker: sharesink's settings
// and each connector's own ConfigDef and validate(), every problem with its key.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileWorkerConfig, validateConnectorConfig } from '../../../src/config/index.js';
import { validateConfigs, validateConnector } from '../../../src/index.js';

const DECLARED = fileURLToPath(new URL('../../fixtures/connectors/declared-settings.ts', import.meta.url));
// nothing listens there: a check that connected would fail or hang, not pass
const WORKER = { 'bootstrap.servers': '127.0.0.1:1' };
const connector = (extra: Record<string, string>) => ({
  name: 'declared',
  'connector.class': DECLARED,
  topics: 'orders',
  ...extra,
});

describe('validateConfigs', () => {
  it("names a required key of the connector's own ConfigDef that is missing", async () => {
    const check = await validateConfigs(WORKER, [connector({})]);
    expect(check.valid).toBe(false);
    expect(check.connectors).toEqual([]);
    expect(check.problems).toEqual([
      {
        source: 'declared',
        index: 0,
        key: 'target.url',
        message: 'is required and has no value; accepted: a string',
      },
    ]);
  });

  it("lists an invalid value and the connector's validate() problems with sharesink's own, at once", async () => {
    const check = await validateConfigs({ ...WORKER, 'pool.threads': 'many' }, [
      connector({ 'target.url': 'ftp://x', 'batch.size': '0', 'tasks.max': 'zero' }),
    ]);
    expect(check.problems.map((p) => `${p.source} ${p.key}`)).toEqual([
      'worker pool.threads',
      'declared tasks.max',
      'declared batch.size',
      'declared target.url',
    ]);
    expect(check.problems.find((p) => p.key === 'batch.size')?.message).toMatch(/^"0" is less than 1/);
    expect(check.problems.find((p) => p.key === 'target.url')?.message).toBe(
      'ftp is not supported; use http: or https:',
    );
  });

  it('compiles a valid pair, with the did-you-mean note for a near miss of a declared key', async () => {
    const check = await validateConfigs(WORKER, [connector({ 'target.url': 'http://x', 'batch.sise': '5' })]);
    expect(check.problems).toEqual([]);
    expect(check.valid).toBe(true);
    expect(check.connectors.map((c) => c.name)).toEqual(['declared']);
    expect(check.notes).toContainEqual(
      expect.objectContaining({
        source: 'declared',
        key: 'batch.sise',
        message: expect.stringContaining('did you mean batch.size?'),
      }),
    );
  });

  it('names a connector module that cannot be loaded, and two connectors of one name', async () => {
    const check = await validateConfigs(WORKER, [
      connector({ 'target.url': 'http://x' }),
      connector({ 'target.url': 'http://x' }),
      { name: 'gone', 'connector.class': './no/such/module.js', topics: 'orders' },
    ]);
    expect(check.problems.map((p) => `${p.source} ${p.key}`)).toEqual([
      'declared name',
      'gone connector.class',
    ]);
    expect(check.problems[1]!.message).toMatch(/^Cannot import connector module/);
  });
});

describe('validateConnector', () => {
  it('catches what the synchronous settings check cannot see', async () => {
    const worker = compileWorkerConfig(WORKER);
    // sharesink's settings alone: nothing wrong, since target.url is the connector's
    expect(validateConnectorConfig(connector({}), worker).problems).toEqual([]);
    const check = await validateConnector(connector({}), worker);
    expect(check.config).toBeUndefined();
    expect(check.problems.map((p) => p.key)).toEqual(['target.url']);
    expect(check.definition?.configKeys().map((k) => k.name)).toEqual(['target.url', 'batch.size']);
  });
});
