// importModule in a worker thread that has no TypeScript loader, as the pool's threads are when
// sharesink runs from its built JavaScript: a `.ts` connector module must fail with import()'s own
// reason, which a connector's failed start then shows, not with what a require() fallback says.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from './pool-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sharesink-import-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** importModule(specifier) in a fresh thread without loaders: its error's code and message. */
function importInBareThread(specifier: string): Promise<{ code?: string; message: string }> {
  const source = readFileSync(new URL('../../../src/pool/import-module.ts', import.meta.url), 'utf8');
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const compiled = join(dir, 'import-module.mjs');
  writeFileSync(compiled, js);
  const probe = `
    import { parentPort } from 'node:worker_threads';
    const { importModule } = await import(${JSON.stringify(pathToFileURL(compiled).href)});
    importModule(${JSON.stringify(specifier)}).then(
      () => parentPort.postMessage({ message: 'imported' }),
      (e) => parentPort.postMessage({ code: e.code, message: e.message }),
    );`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(probe)}`), { execArgv: [] });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { code?: string; message: string }) => {
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', reject);
  });
}

describe('importModule in a thread without a TypeScript loader', () => {
  it("rejects a .ts module with import()'s reason: an unknown file extension", async () => {
    const connector = fixture('ok');
    expect(await importInBareThread(connector.href)).toEqual({
      code: 'ERR_UNKNOWN_FILE_EXTENSION',
      message: `Unknown file extension ".ts" for ${fileURLToPath(connector)}`,
    });
  });
});
