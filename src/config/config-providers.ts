/**
 * Connect's config providers, so secrets need not be written in worker or connector files:
 *
 * ```properties
 * config.providers=file,env
 * config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
 * config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
 * sasl.jaas.config=${file:/etc/sharesink/kafka.properties:jaas}
 * consumer.override.ssl.keystore.password=${env:KEYSTORE_PASSWORD}
 * ```
 *
 * References are resolved once, when a file is compiled; a reference that cannot be resolved is a
 * problem naming the key and the reference, never the value. Connect's names are accepted:
 * `FileConfigProvider` (`${file:<path>:<key>}`, a `.properties` file), `EnvVarConfigProvider`
 * (`${env:<VAR>}`), `DirectoryConfigProvider` (`${dir:<dir>:<file name>}`, the file's content), with
 * their `param.allowed.paths` / `param.allowlist.pattern`.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { parseProperties } from './properties.js';

const PACKAGE = 'org.apache.kafka.common.config.provider.';
const KINDS = {
  file: `${PACKAGE}FileConfigProvider`,
  env: `${PACKAGE}EnvVarConfigProvider`,
  dir: `${PACKAGE}DirectoryConfigProvider`,
} as const;
type Kind = keyof typeof KINDS;

export const CONFIG_PROVIDERS_KEY = 'config.providers';
const PREFIX = 'config.providers.';

/** Connect's ConfigTransformer pattern: `${provider:path:key}` or `${provider:key}`. */
const REFERENCE = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

interface Provider {
  readonly name: string;
  readonly kind: Kind;
  /** `param.allowed.paths` (file, dir): the files that may be read. */
  readonly allowedPaths?: readonly string[];
  /** `param.allowlist.pattern` (env): the variables that may be read. */
  readonly allowlist?: RegExp;
}

function kindOf(className: string | undefined, name: string): Kind | undefined {
  if (className === undefined) return (Object.keys(KINDS) as Kind[]).find((k) => k === name);
  const trimmed = className.trim();
  return (Object.keys(KINDS) as Kind[]).find(
    (k) => KINDS[k] === trimmed || KINDS[k].slice(PACKAGE.length) === trimmed,
  );
}

/** The providers a worker file declares; resolves `${…}` references in worker and connector values. */
export class ConfigProviders {
  readonly #providers: ReadonlyMap<string, Provider>;
  readonly #env: NodeJS.ProcessEnv;
  readonly #files = new Map<string, Record<string, string>>();

  private constructor(providers: ReadonlyMap<string, Provider>, env: NodeJS.ProcessEnv) {
    this.#providers = providers;
    this.#env = env;
  }

  /** None declared: references are left as written (and reported, see {@link resolve}). */
  static readonly NONE = new ConfigProviders(new Map(), process.env);

  /** Reads `config.providers` and `config.providers.<name>.*` from worker properties. */
  static fromWorkerProps(
    props: Readonly<Record<string, string>>,
    env: NodeJS.ProcessEnv = process.env,
  ): { providers: ConfigProviders; problems: string[] } {
    const problems: string[] = [];
    const names = (props[CONFIG_PROVIDERS_KEY] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const providers = new Map<string, Provider>();
    const accepted = `accepted: ${Object.values(KINDS).join(', ')}`;
    for (const name of names) {
      const classKey = `${PREFIX}${name}.class`;
      const kind = kindOf(props[classKey], name);
      if (kind === undefined) {
        problems.push(
          props[classKey] === undefined
            ? `${classKey}: is required for the config provider ${name}; ${accepted}`
            : `${classKey}: ${JSON.stringify(props[classKey])} is not a config provider sharesink has; ${accepted}`,
        );
        continue;
      }
      const param = (p: string) => props[`${PREFIX}${name}.param.${p}`]?.trim();
      const paths = param('allowed.paths');
      const pattern = param('allowlist.pattern');
      let allowlist: RegExp | undefined;
      if (pattern !== undefined && pattern !== '') {
        try {
          allowlist = new RegExp(`^(?:${pattern})$`);
        } catch (err) {
          problems.push(
            `${PREFIX}${name}.param.allowlist.pattern: is not a regular expression (${(err as Error).message})`,
          );
        }
      }
      providers.set(name, {
        name,
        kind,
        ...(paths !== undefined && paths !== ''
          ? { allowedPaths: paths.split(',').map((p) => resolve(p.trim())) }
          : {}),
        ...(allowlist !== undefined ? { allowlist } : {}),
      });
    }
    for (const key of Object.keys(props)) {
      if (!key.startsWith(PREFIX)) continue;
      const name = key.slice(PREFIX.length).split('.')[0]!;
      if (!providers.has(name) && !names.includes(name))
        problems.push(
          `${key}: the config provider ${name} is not listed in config.providers; accepted: add it there`,
        );
    }
    return { providers: new ConfigProviders(providers, env), problems };
  }

  /** True when `value` holds a `${provider:…}` reference to a provider named here or one of Connect's. */
  static hasReference(value: string): boolean {
    for (const m of value.matchAll(REFERENCE)) if (m[1] !== undefined) return true;
    return false;
  }

  /**
   * Every value with its references replaced. `resolvedKeys` lists the keys a reference was resolved in
   * (printed as written, never resolved). Keys under `config.providers` are left as they are.
   */
  resolve(props: Readonly<Record<string, string>>): {
    props: Record<string, string>;
    resolvedKeys: string[];
    problems: string[];
  } {
    const out: Record<string, string> = {};
    const resolvedKeys: string[] = [];
    const problems: string[] = [];
    for (const [key, value] of Object.entries(props)) {
      if (key === CONFIG_PROVIDERS_KEY || key.startsWith(PREFIX) || !value.includes('${')) {
        out[key] = value;
        continue;
      }
      let changed = false;
      out[key] = value.replace(REFERENCE, (whole, name: string, path: string | undefined, name2: string) => {
        const provider = this.#providers.get(name);
        if (provider === undefined) {
          // Connect leaves a reference to an unknown provider as written; for Connect's own provider
          // names that is a secret silently not read, so it is a problem here
          if (name in KINDS)
            problems.push(
              `${key}: ${whole} names the config provider ${name}, which config.providers does not list; accepted: config.providers=${name} in the worker file`,
            );
          return whole;
        }
        const got = this.#lookup(provider, path, name2);
        if ('problem' in got) {
          problems.push(`${key}: ${whole} cannot be resolved: ${got.problem}`);
          return whole;
        }
        changed = true;
        return got.value;
      });
      if (changed) resolvedKeys.push(key);
    }
    return { props: out, resolvedKeys, problems };
  }

  #lookup(p: Provider, path: string | undefined, key: string): { value: string } | { problem: string } {
    if (p.kind === 'env') {
      if (path !== undefined && path !== '')
        return { problem: `the env provider takes no path; accepted: \${${p.name}:VARIABLE}` };
      if (p.allowlist !== undefined && !p.allowlist.test(key))
        return { problem: `${key} is not allowed by config.providers.${p.name}.param.allowlist.pattern` };
      const value = this.#env[key];
      return value === undefined ? { problem: `the environment variable ${key} is not set` } : { value };
    }
    if (path === undefined || path === '')
      return {
        problem: `a path is required; accepted: \${${p.name}:/path/to/${p.kind === 'file' ? 'file.properties:key' : 'directory:file'}}`,
      };
    const file = p.kind === 'dir' ? join(path, key) : path;
    if (p.kind === 'dir' && (key.includes('/') || key.includes(sep)))
      return { problem: `${key} is not a file name in ${path}` };
    if (!isAbsolute(file)) return { problem: `${file} is not an absolute path` };
    if (p.allowedPaths !== undefined && !this.#allowed(file, p.allowedPaths))
      return { problem: `${file} is outside config.providers.${p.name}.param.allowed.paths` };
    if (p.kind === 'dir') {
      try {
        return { value: readFileSync(file, 'utf8') };
      } catch (err) {
        return {
          problem: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        };
      }
    }
    let entries = this.#files.get(file);
    if (entries === undefined) {
      try {
        entries = parseProperties(readFileSync(file, 'utf8'));
      } catch (err) {
        return {
          problem: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        };
      }
      this.#files.set(file, entries);
    }
    const value = entries[key];
    return value === undefined ? { problem: `${file} has no key ${key}` } : { value };
  }

  #allowed(file: string, allowed: readonly string[]): boolean {
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      real = resolve(file);
    }
    return allowed.some((dir) => real === dir || real.startsWith(dir.endsWith(sep) ? dir : dir + sep));
  }
}
