import { ConfigError } from '../../errors.js';
import { ByteArrayConverter } from './byte-array-converter.js';
import type { Converter, HeaderConverter } from './converter.js';
import { JsonConverter } from './json-converter.js';
import { REGISTRY_CONVERTERS } from './schema-registry/converters.js';
import { SimpleHeaderConverter } from './simple-header-converter.js';
import { StringConverter } from './string-converter.js';

/** Which converter class to use, and its settings with the `<part>.converter.` prefix removed. */
export interface ConverterSpec {
  readonly className: string;
  readonly props: Readonly<Record<string, string>>;
}

export interface ConvertersConfig {
  readonly key: ConverterSpec;
  readonly value: ConverterSpec;
  readonly header: ConverterSpec;
}

export interface LoadedConverters {
  readonly key: Converter;
  readonly value: Converter;
  readonly header: HeaderConverter;
  /** Class names as configured, for error messages. */
  readonly names: { readonly key: string; readonly value: string; readonly header: string };
}

const VALUE_CONVERTERS: Record<string, () => Converter & HeaderConverter> = {
  StringConverter: () => new StringConverter(),
  'org.apache.kafka.connect.storage.StringConverter': () => new StringConverter(),
  ByteArrayConverter: () => new ByteArrayConverter(),
  'org.apache.kafka.connect.converters.ByteArrayConverter': () => new ByteArrayConverter(),
  JsonConverter: () => new JsonConverter(),
  'org.apache.kafka.connect.json.JsonConverter': () => new JsonConverter(),
};

/** Key and value converters only: Connect's Schema Registry converters are not header converters. */
const KEY_VALUE_CONVERTERS: Record<string, () => Converter> = { ...VALUE_CONVERTERS, ...REGISTRY_CONVERTERS };

const HEADER_CONVERTERS: Record<string, () => HeaderConverter> = {
  SimpleHeaderConverter: () => new SimpleHeaderConverter(),
  'org.apache.kafka.connect.storage.SimpleHeaderConverter': () => new SimpleHeaderConverter(),
  // as in Connect, these converters convert header values too
  ...VALUE_CONVERTERS,
};

/**
 * What a worker without converter settings gets: JSON with schemas (JsonConverter's own default) for
 * keys and values, simple header parsing. Connect has no such default (its workers require
 * key.converter and value.converter); converter-notices.ts says at start what this means for plain JSON.
 */
export const DEFAULT_CONVERTERS: ConvertersConfig = Object.freeze({
  key: { className: 'org.apache.kafka.connect.json.JsonConverter', props: {} },
  value: { className: 'org.apache.kafka.connect.json.JsonConverter', props: {} },
  header: { className: 'org.apache.kafka.connect.storage.SimpleHeaderConverter', props: {} },
});

type Part = keyof ConvertersConfig;
const PARTS: readonly Part[] = ['key', 'value', 'header'];

/**
 * Reads `key.converter`, `value.converter`, `header.converter` and their `…converter.*` settings from
 * config layers, lowest precedence first (worker, then connector). As in Connect, a converter's
 * settings come from the same layer that names its class.
 */
export function convertersFromProps(
  ...layers: readonly Readonly<Record<string, string | undefined>>[]
): ConvertersConfig {
  const pick = (part: Part): ConverterSpec => {
    const classKey = `${part}.converter`;
    for (let i = layers.length - 1; i >= 0; i--) {
      const layer = layers[i]!;
      const className = layer[classKey]?.trim();
      if (className === undefined || className === '') continue;
      const prefix = `${classKey}.`;
      const props: Record<string, string> = {};
      for (const [k, v] of Object.entries(layer)) {
        if (k.startsWith(prefix) && v !== undefined) props[k.slice(prefix.length)] = v;
      }
      return { className, props };
    }
    return DEFAULT_CONVERTERS[part];
  };
  return { key: pick('key'), value: pick('value'), header: pick('header') };
}

export type ImportModule = (specifier: string) => Promise<unknown>;

/** Instantiates and configures all three converters; every problem is reported in one ConfigError. */
export async function createConverters(
  config: ConvertersConfig,
  importModule: ImportModule = (specifier) => import(specifier),
): Promise<LoadedConverters> {
  const problems: string[] = [];
  const made: Partial<Record<Part, Converter | HeaderConverter>> = {};
  for (const part of PARTS) {
    const spec = config[part];
    const classKey = `${part}.converter`;
    try {
      const builtin =
        part === 'header' ? HEADER_CONVERTERS[spec.className] : KEY_VALUE_CONVERTERS[spec.className];
      const instance = builtin?.() ?? (await loadCustom(spec.className, part, importModule));
      if (instance === undefined) {
        const known = Object.keys(part === 'header' ? HEADER_CONVERTERS : KEY_VALUE_CONVERTERS).join(', ');
        problems.push(
          `${classKey}: ${JSON.stringify(spec.className)} is not a converter; accepted: ${known} or a module whose default export is a converter class`,
        );
        continue;
      }
      if (part === 'header') (instance as HeaderConverter).configure(spec.props);
      else (instance as Converter).configure(spec.props, part === 'key');
      made[part] = instance;
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems.map((p) => `${classKey}.${p}`));
      else
        problems.push(
          `${classKey}: ${JSON.stringify(spec.className)} failed to load: ${(error as Error).message}`,
        );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    key: made.key as Converter,
    value: made.value as Converter,
    header: made.header as HeaderConverter,
    names: { key: config.key.className, value: config.value.className, header: config.header.className },
  };
}

async function loadCustom(
  className: string,
  part: Part,
  importModule: ImportModule,
): Promise<Converter | HeaderConverter | undefined> {
  if (className.startsWith('org.apache.kafka.')) return undefined;
  const ns = (await importModule(className)) as { default?: unknown };
  if (typeof ns.default !== 'function') return undefined;
  const instance = new (ns.default as new () => Record<string, unknown>)();
  const method = part === 'header' ? 'toConnectHeader' : 'toConnectData';
  return typeof instance[method] === 'function'
    ? (instance as unknown as Converter | HeaderConverter)
    : undefined;
}
