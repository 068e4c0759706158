/**
 * Converter settings, checked when the files are compiled: a bad value fails the start (never the first
 * put in a pool thread), and settings that would do nothing are noted as warnings.
 */
import { ByteArrayConverter } from '../connect/converters/byte-array-converter.js';
import { JsonConverter } from '../connect/converters/json-converter.js';
import {
  REGISTRY_IGNORED,
  REGISTRY_SETTINGS,
  parseRegistrySettings,
} from '../connect/converters/schema-registry/settings.js';
import type { ConvertersConfig } from '../connect/converters/registry.js';
import { SimpleHeaderConverter } from '../connect/converters/simple-header-converter.js';
import { StringConverter } from '../connect/converters/string-converter.js';
import { ConfigError } from '../errors.js';
import { didYouMean } from './did-you-mean.js';

type Part = keyof ConvertersConfig;
const PARTS: readonly Part[] = ['key', 'value', 'header'];

interface Builtin {
  readonly name: string;
  readonly configure: (props: Readonly<Record<string, string>>, isKey: boolean) => void;
  /** The settings it reads; Connect itself passes `converter.type`, so that one is always accepted. */
  readonly settings: readonly string[];
  /** Settings Connect users write that it accepts and does not act on, with the reason. */
  readonly ignored?: Readonly<Record<string, string>>;
}

const JSON_SETTINGS = ['schemas.enable', 'decimal.format', 'replace.null.with.default', 'schemas.cache.size'];
const json: Builtin = {
  name: 'JsonConverter',
  configure: (p, k) => new JsonConverter().configure(p, k),
  settings: JSON_SETTINGS,
};
const string: Builtin = {
  name: 'StringConverter',
  configure: (p, k) => new StringConverter().configure(p, k),
  settings: ['converter.encoding', 'encoding'],
};
const bytes: Builtin = {
  name: 'ByteArrayConverter',
  configure: () => new ByteArrayConverter().configure(),
  settings: [],
};
const simple: Builtin = {
  name: 'SimpleHeaderConverter',
  configure: () => new SimpleHeaderConverter().configure(),
  settings: [],
};

const registry = (name: string): Builtin => ({
  name,
  configure: (p) => void parseRegistrySettings(p),
  settings: REGISTRY_SETTINGS,
  ignored: REGISTRY_IGNORED,
});
const avro = registry('AvroConverter');
const protobuf = registry('ProtobufConverter');
const jsonSchema = registry('JsonSchemaConverter');

/** Every name the built-in converters go by (the registry's names; a unit test keeps them equal). */
export const BUILTIN_CONVERTER_SETTINGS: ReadonlyMap<string, Builtin> = new Map([
  ['JsonConverter', json],
  ['org.apache.kafka.connect.json.JsonConverter', json],
  ['StringConverter', string],
  ['org.apache.kafka.connect.storage.StringConverter', string],
  ['ByteArrayConverter', bytes],
  ['org.apache.kafka.connect.converters.ByteArrayConverter', bytes],
  ['SimpleHeaderConverter', simple],
  ['org.apache.kafka.connect.storage.SimpleHeaderConverter', simple],
  ['AvroConverter', avro],
  ['io.confluent.connect.avro.AvroConverter', avro],
  ['ProtobufConverter', protobuf],
  ['io.confluent.connect.protobuf.ProtobufConverter', protobuf],
  ['JsonSchemaConverter', jsonSchema],
  ['io.confluent.connect.json.JsonSchemaConverter', jsonSchema],
]);

export interface ConverterCheck {
  readonly problems: string[];
  readonly warnings: string[];
}

/**
 * Configures each built-in converter of `converters` whose class `props` names (the worker file, or a
 * connector file that names its own), so a bad value is a problem under its full key, and notes the
 * settings the converter does not have. Module converters are checked when they are loaded.
 */
export function checkConverters(
  converters: ConvertersConfig,
  props: Readonly<Record<string, string>>,
): ConverterCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const part of PARTS) {
    const classKey = `${part}.converter`;
    const spec = converters[part];
    if ((props[classKey] ?? '').trim() === '') continue;
    const builtin = BUILTIN_CONVERTER_SETTINGS.get(spec.className);
    // a key/value-only converter named as header.converter is refused by the class check already
    if (builtin === undefined || (part === 'header' && builtin.ignored !== undefined)) continue;
    try {
      builtin.configure(spec.props, part === 'key');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((p) => `${classKey}.${p}`));
    }
    for (const name of Object.keys(spec.props)) {
      if (builtin.settings.includes(name) || name === 'converter.type') continue;
      const why = builtin.ignored?.[name];
      if (why !== undefined) {
        warnings.push(`${classKey}.${name}: ignored by sharesink's ${builtin.name}: ${why}`);
        continue;
      }
      warnings.push(
        `${classKey}.${name}: not a setting of ${builtin.name}; ignored${didYouMean(name, builtin.settings, 2).replace('mean ', `mean ${classKey}.`)}`,
      );
    }
  }
  return { problems, warnings };
}

/**
 * A connector's `<part>.converter.*` keys when it does not name `<part>.converter`: Connect takes a
 * converter's settings from the file that names its class, so these do nothing (the worker's converter
 * runs with the worker file's settings). One note per part.
 */
export function strandedConverterSettings(
  props: Readonly<Record<string, string>>,
  converters: ConvertersConfig,
): string[] {
  const warnings: string[] = [];
  for (const part of PARTS) {
    const classKey = `${part}.converter`;
    if ((props[classKey] ?? '').trim() !== '') continue;
    const keys = Object.keys(props).filter((k) => k.startsWith(`${classKey}.`));
    if (keys.length === 0) continue;
    const worker = converters[part].className;
    const short = worker.slice(worker.lastIndexOf('.') + 1);
    warnings.push(
      `${keys.join(', ')}: ignored, as in Connect: this connector does not set ${classKey}, so the worker's ${classKey} (${short}) runs with the worker file's ${classKey}.* settings; to apply ${keys.length === 1 ? 'it' : 'them'}, also set ${classKey}=${short} in this connector file`,
    );
  }
  return warnings;
}
