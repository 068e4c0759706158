// What a service embedding sharesink imports from the package root (src/index.ts, the only entry of
// package.json "exports" besides ./testing): the error classes docs/errors.md names, and the types of
// what the runtime and the config functions hand back.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../src/index.js';
import * as testing from '../../src/testing/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('public API for embedders', () => {
  it('exports every error class docs/errors.md names', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
    const named = new Set<string>();
    for (const row of doc.split('\n').filter((l) => l.startsWith('| `SHARESINK_'))) {
      const classColumn = row.split('|')[2] ?? '';
      for (const m of classColumn.matchAll(/`([A-Z]\w*Error)`/g)) named.add(m[1]!);
    }
    expect(named.size).toBeGreaterThan(20);
    const exported = (name: string) =>
      typeof (api as Record<string, unknown>)[name] === 'function' ||
      typeof (testing as Record<string, unknown>)[name] === 'function';
    expect([...named].filter((name) => !exported(name)).sort()).toEqual([]);
  });

  it('has the types of what validate*, the Worker and its options hand over', () => {
    expectTypeOf(api.validateWorkerConfig).returns.toEqualTypeOf<api.WorkerCheck>();
    expectTypeOf(api.validateConnectorConfig).returns.toEqualTypeOf<api.ConnectorCheck>();
    expectTypeOf<api.WorkerCheck['config']>().toEqualTypeOf<api.WorkerConfig | undefined>();
    expectTypeOf<api.Worker['taskFailures']>().toEqualTypeOf<readonly api.TaskFailure[]>();
    expectTypeOf<api.Worker['health']>().returns.toEqualTypeOf<api.HealthReport>();
    expectTypeOf<api.HealthReport['status']>().toEqualTypeOf<'UP' | 'DOWN'>();
    expectTypeOf<api.WorkerOptions['onTaskFailed']>().toEqualTypeOf<
      ((failure: api.TaskFailure) => void) | undefined
    >();
    expectTypeOf<api.WorkerOptions['checkCluster']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<api.RestServerOptions['security']>().toEqualTypeOf<api.RestSecurity | undefined>();
    expectTypeOf(api.checkConnectorCode).returns.toEqualTypeOf<Promise<string[]>>();
    expect(new api.TaskFailedError('why')).toMatchObject({ code: 'SHARESINK_TASK_FAILED' });
  });
});
