import { ConfigError } from '../errors.js';
import { HiddenValue } from '../hidden-value.js';
import type { Validator } from './config-validators.js';

export type ConfigType = 'string' | 'int' | 'long' | 'double' | 'boolean' | 'list' | 'password' | 'class';
export type Importance = 'high' | 'medium' | 'low';

/** A secret value: prints as `[hidden]` so it never lands in a log line or an error message. */
export class Password extends HiddenValue {}

export type ValueOf<T extends ConfigType> = T extends 'string' | 'class'
  ? string
  : T extends 'int' | 'long' | 'double'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'list'
        ? string[]
        : Password;

interface KeyInitBase<N extends string, T extends ConfigType> {
  name: N;
  type: T;
  importance: Importance;
  documentation: string;
  validator?: Validator<ValueOf<T> | null>;
  group?: string;
  displayName?: string;
}

export interface ConfigKey {
  readonly name: string;
  readonly type: ConfigType;
  readonly importance: Importance;
  readonly documentation: string;
  readonly required: boolean;
  readonly default: unknown;
  readonly validator: Validator<unknown> | undefined;
  readonly group: string | undefined;
  readonly displayName: string | undefined;
}

const ACCEPTED: Record<ConfigType, string> = {
  string: 'a string',
  class: 'a class name or module specifier',
  password: 'a string',
  int: 'a 32-bit integer',
  long: `an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
  double: 'a finite number',
  boolean: 'true or false',
  list: 'a comma-separated list',
};

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const COMMA = /\s*,\s*/;

/** Parses one raw string as Connect does for the type; undefined means "not a valid value". */
function parseRaw(type: ConfigType, raw: string): unknown {
  const trimmed = raw.trim();
  switch (type) {
    case 'string':
    case 'class':
      return trimmed;
    case 'password':
      return new Password(raw);
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      return lower === 'true' ? true : lower === 'false' ? false : undefined;
    }
    case 'int': {
      const n = INTEGER.test(trimmed) ? Number(trimmed) : NaN;
      return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
    }
    case 'long': {
      const n = INTEGER.test(trimmed) ? Number(trimmed) : NaN;
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case 'double': {
      const n = NUMBER.test(trimmed) ? Number(trimmed) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'list':
      return trimmed === '' ? [] : trimmed.split(COMMA);
  }
}

function shown(key: ConfigKey, raw: string): string {
  return key.type === 'password' ? '"[hidden]"' : JSON.stringify(raw);
}

function accepted(key: ConfigKey): string {
  return key.validator === undefined
    ? ACCEPTED[key.type]
    : `${ACCEPTED[key.type]}, ${key.validator.describe()}`;
}

/**
 * Declares a connector's settings once (type, default, validator, importance, documentation), the way
 * Connect's ConfigDef does, and parses string properties into typed values. The type parameter
 * accumulates so `parse()` returns `{ 'batch.size': number, file: string | null, ... }`.
 *
 * @example
 * ```ts
 * const CONFIG = new ConfigDef()
 *   .define({ name: 'file', type: 'string', default: null, importance: 'high', documentation: 'Output file.' })
 *   .define({ name: 'batch.size', type: 'int', default: 100, validator: atLeast(1), importance: 'low', documentation: '…' });
 * const { file, 'batch.size': batchSize } = CONFIG.parse(props);
 * ```
 */
export class ConfigDef<V extends Record<string, unknown> = Record<never, never>> {
  readonly #keys = new Map<string, ConfigKey>();

  /** A key whose default is null is optional and parses to null when absent. */
  define<const N extends string, T extends ConfigType>(
    init: KeyInitBase<N, T> & { default: null },
  ): ConfigDef<V & { [K in N]: ValueOf<T> | null }>;
  define<const N extends string, T extends ConfigType>(
    init: KeyInitBase<N, T> & { default: ValueOf<T> },
  ): ConfigDef<V & { [K in N]: ValueOf<T> }>;
  /** A key with no default is required. */
  define<const N extends string, T extends ConfigType>(
    init: KeyInitBase<N, T>,
  ): ConfigDef<V & { [K in N]: ValueOf<T> }>;
  define(init: KeyInitBase<string, ConfigType> & { default?: unknown }): ConfigDef<Record<string, unknown>> {
    if (this.#keys.has(init.name)) throw new TypeError(`Config key ${init.name} is defined twice`);
    const required = !('default' in init) || init.default === undefined;
    const key: ConfigKey = {
      name: init.name,
      type: init.type,
      importance: init.importance,
      documentation: init.documentation,
      required,
      default: required ? undefined : init.default,
      validator: init.validator as Validator<unknown> | undefined,
      group: init.group,
      displayName: init.displayName,
    };
    const problem = required ? undefined : key.validator?.check(key.default);
    if (problem !== undefined) throw new TypeError(`Default of ${init.name} ${problem}`);
    this.#keys.set(init.name, key);
    return this as unknown as ConfigDef<Record<string, unknown>>;
  }

  /** Every key, in definition order: the source for generated documentation. */
  configKeys(): readonly ConfigKey[] {
    return [...this.#keys.values()];
  }

  /** A new ConfigDef with this one's keys followed by `other`'s; a name defined in both is an error. */
  merge<W extends Record<string, unknown>>(other: ConfigDef<W>): ConfigDef<V & W> {
    const merged = new ConfigDef<V & W>();
    for (const key of [...this.#keys.values(), ...other.configKeys()]) {
      if (merged.#keys.has(key.name)) throw new TypeError(`Config key ${key.name} is defined twice`);
      merged.#keys.set(key.name, key);
    }
    return merged;
  }

  /** Problems per key; empty when `props` is valid. Keys this definition does not know are ignored. */
  validate(props: Readonly<Record<string, string | undefined>>): Map<string, string[]> {
    return this.#parse(props).problems;
  }

  /** Typed values, defaults applied; throws ConfigError listing every problem at once. */
  parse(props: Readonly<Record<string, string | undefined>>): V {
    const { values, problems } = this.#parse(props);
    if (problems.size > 0) throw new ConfigError([...problems.values()].flat());
    return values as V;
  }

  #parse(props: Readonly<Record<string, string | undefined>>): {
    values: Record<string, unknown>;
    problems: Map<string, string[]>;
  } {
    const values: Record<string, unknown> = {};
    const problems = new Map<string, string[]>();
    const report = (key: ConfigKey, text: string): void => {
      problems.set(key.name, [
        ...(problems.get(key.name) ?? []),
        `${key.name}: ${text}; accepted: ${accepted(key)}`,
      ]);
    };
    for (const key of this.#keys.values()) {
      const raw = Object.hasOwn(props, key.name) ? props[key.name] : undefined;
      if (raw === undefined) {
        if (key.required) report(key, 'is required and has no value');
        else values[key.name] = key.default;
        continue;
      }
      const value = parseRaw(key.type, raw);
      if (value === undefined) {
        report(key, `${shown(key, raw)} is not ${ACCEPTED[key.type]}`);
        continue;
      }
      const problem = key.validator?.check(value);
      if (problem !== undefined) report(key, `${shown(key, raw)} ${problem}`);
      else values[key.name] = value;
    }
    return { values, problems };
  }
}

/** Typed values a ConfigDef parses to. */
export type ConfigValues<D> = D extends ConfigDef<infer V> ? V : never;
