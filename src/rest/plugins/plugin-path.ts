/**
 * `plugin.path` for Node modules: the directories whose connector modules a REST request may name as
 * `connector.class`. Connect loads only plugins installed on its plugin path; a request cannot make a
 * worker import a file of its choosing. Here a module qualifies when the file it resolves to (a path,
 * a `file:` URL or an npm package, resolved as the runtime would import it) lies inside one of the
 * directories, symbolic links followed. {@link pluginPathConnectors} finds the connector modules in them
 * for `GET /connector-plugins`.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConnectorModule, resolveConnectorModule } from '../../connect/connector-module.js';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from '../../config/converter-names.js';
import type { ConnectorConfig } from '../../config/types.js';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // a module that does not exist yet: its import fails later with its own message
    return path;
  }
}

/** The file a `connector.class` would be imported from, or undefined when it cannot be resolved. */
function moduleFile(written: string): string | undefined {
  const specifier = resolveConnectorModule(written);
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

/** True when `specifier` (a `connector.class`, a converter, a transform) resolves to a file under one of the `plugin.path` directories. */
export function onPluginPath(specifier: string, pluginPath: readonly string[]): boolean {
  if (pluginPath.length === 0) return false;
  const file = moduleFile(specifier);
  if (file === undefined) return false;
  const target = real(file);
  return pluginPath.some((dir) => inside(real(resolve(dir)), target));
}

/**
 * The modules a connector config names besides its connector: converters, transforms and predicates
 * given by path or package, as `[key, module]`. Only keys the config sets: the worker's own defaults are
 * the operator's, not a request's.
 */
export function otherModules(
  written: Readonly<Record<string, string>>,
  config: ConnectorConfig,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const part of ['key', 'value', 'header'] as const) {
    const key = `${part}.converter`;
    const name = written[key]?.trim();
    if (name === undefined || name === '') continue;
    const builtin = part === 'header' ? BUILTIN_HEADER_CONVERTERS : BUILTIN_VALUE_CONVERTERS;
    if (!builtin.includes(name) && !name.startsWith('org.apache.kafka.')) out.push([key, name]);
  }
  for (const t of config.transforms.transforms)
    if (t.module !== undefined) out.push([`transforms.${t.alias}.type`, t.module]);
  for (const p of config.transforms.predicates)
    if (p.module !== undefined) out.push([`predicates.${p.alias}.type`, p.module]);
  return out;
}

/** Files a connector module may be (`.ts` imports only where the process runs under tsx). */
const MODULE_FILE = /\.(?:[mc]?js|m?ts)$/;

function packageName(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : undefined;
  } catch {
    return undefined;
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch {
    return []; // a directory that does not exist (yet) has no plugins
  }
}

/**
 * What one `plugin.path` directory offers as `connector.class` values, in the form a config names
 * them: each module file directly in it by its absolute path, each npm package in it (or in an
 * `@scope` directory in it) by its package name. Subdirectories are not searched further.
 */
async function candidatesIn(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await entries(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() === true) {
      if (MODULE_FILE.test(name) && !/\.d\.[mc]?ts$/.test(name)) out.push(path);
    } else if (info?.isDirectory() === true) {
      const pkg = packageName(path);
      if (pkg !== undefined) out.push(pkg);
      else if (name.startsWith('@'))
        for (const inner of await entries(path)) {
          const scoped = packageName(join(path, inner));
          if (scoped !== undefined) out.push(scoped);
        }
    }
  }
  return out;
}

/**
 * The connector modules under the `plugin.path` directories, as `connector.class` values a request
 * may name: the candidates of {@link candidatesIn} that {@link onPluginPath} accepts (a link leading
 * out, or a package the runtime would import from elsewhere, is not one) and that import as a
 * connector module. A file that does not import, or exports no connector, is left out (helpers,
 * converters, transforms); `sharesink validate` says why a module is not one.
 */
export async function pluginPathConnectors(
  pluginPath: readonly string[],
  load: (specifier: string) => Promise<unknown> = loadConnectorModule,
): Promise<string[]> {
  const out: string[] = [];
  for (const dir of pluginPath)
    for (const candidate of await candidatesIn(resolve(dir))) {
      if (out.includes(candidate) || !onPluginPath(candidate, pluginPath)) continue;
      try {
        await load(resolveConnectorModule(candidate));
        out.push(candidate);
      } catch {
        // not a connector module
      }
    }
  return out;
}
