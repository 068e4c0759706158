import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_CONFIG_DEF, WORKER_CONFIG_DEF } from '../../../src/config/index.js';
import { DEFAULT_DOC, renderConfigDocs } from '../../../scripts/gen-config-docs.js';

const run = promisify(execFile);
const script = new URL('../../../scripts/gen-config-docs.ts', import.meta.url).pathname;

describe('docs/configuration.md', () => {
  it('matches the setting declarations (run `npm run docs:config` when this fails)', () => {
    expect(readFileSync(DEFAULT_DOC, 'utf8') === renderConfigDocs(), 'docs/configuration.md is stale').toBe(
      true,
    );
  });

  it('documents every declared setting in a table row', () => {
    const doc = renderConfigDocs();
    for (const key of [...WORKER_CONFIG_DEF.configKeys(), ...CONNECTOR_CONFIG_DEF.configKeys()]) {
      expect(doc).toContain(`| \`${key.name}\` |`);
    }
  });

  it('--check exits 0 on the checked-in file and 1, saying what to run, on a stale one', async () => {
    const ok = await run(process.execPath, ['--import', 'tsx', script, '--check']);
    expect(ok.stdout).toContain('is up to date');
    const stale = join(mkdtempSync(join(tmpdir(), 'sharesink-docs-')), 'configuration.md');
    writeFileSync(stale, '# old\n');
    const failed = await run(process.execPath, ['--import', 'tsx', script, '--check', stale]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      `${stale} is stale: it does not match the setting declarations in src/config/. Run \`npm run docs:config\` and commit the result.\n`,
    );
  }, 30_000);
});
