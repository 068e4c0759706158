// A connector's own problems, found when Worker.start() runs its code, carry their setting as `key`
// (not the connector's name) and print as the line always did.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { offlineWorker } from '../../fixtures/offline-worker.js';

const DECLARED = fileURLToPath(new URL('../../fixtures/connectors/declared-settings.ts', import.meta.url));

describe("a connector's own problems at start", () => {
  it('name the setting as key, the connector as connector', async () => {
    const worker = offlineWorker('declared', DECLARED);
    const err = await worker.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    await worker.stop();
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems.map((p) => [p.connector, p.key])).toEqual([['declared', 'target.url']]);
    expect(String(problems[0])).toMatch(/^declared: target\.url: /);
  });
});
