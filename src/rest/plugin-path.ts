/**
 * `plugin.path` for Node modules: the directories whose connector modules a REST request may name as
 * `connector.class`. Connect loads only plugins installed on its plugin path; a request cannot make a
 * worker import a file of its choosing. Here a module qualifies when the file it resolves to (a path,
 * a `file:` URL or an npm package, resolved as the runtime would import it) lies inside one of the
 * directories, symbolic links followed.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConnectorModule } from '../connect/connector-module.js';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // a module that does not exist yet: its import fails later with its own message
    return path;
  }
}

/** The file a `connector.class` would be imported from, or undefined when it cannot be resolved. */
function moduleFile(connectorClass: string): string | undefined {
  const specifier = resolveConnectorModule(connectorClass);
  try {
    const url = specifier.startsWith('file:') ? specifier : import.meta.resolve(specifier);
    return url.startsWith('file:') ? fileURLToPath(url) : undefined;
  } catch {
    return undefined;
  }
}

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** True when `connectorClass` resolves to a file under one of the `plugin.path` directories. */
export function onPluginPath(connectorClass: string, pluginPath: readonly string[]): boolean {
  if (pluginPath.length === 0) return false;
  const file = moduleFile(connectorClass);
  if (file === undefined) return false;
  const target = real(file);
  return pluginPath.some((dir) => inside(real(resolve(dir)), target));
}
