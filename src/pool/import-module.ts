import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * `import()` for connector and converter modules inside a worker thread. On Node 20, loader hooks
 * registered with `--import` (tsx) do not apply to a worker's ESM loader, while tsx's require hook
 * does; so a `.ts` module that import() cannot read is loaded through require() instead.
 */
export async function importModule(specifier: string): Promise<unknown> {
  try {
    return await import(specifier);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    // without a TypeScript require hook (a thread started without tsx), require() fails too, and
    // Node's require(esm) then blames a "race condition": import()'s own error is the true reason
    if (require.extensions['.ts'] === undefined) throw error;
    return require(specifier.startsWith('file:') ? fileURLToPath(specifier) : specifier) as unknown;
  }
}
