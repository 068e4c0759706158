/** Connect's ReplaceField: keeps (`include`), drops (`exclude`) and renames (`renames`) fields. */
import { ConfigDef } from '../config-def.js';
import type { Field, Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, problem, replaceNullDef } from './common-config.js';
import {
  fieldValue,
  put,
  type Data,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Operating,
} from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'field replacement';

export const REPLACE_FIELD_DEF = new ConfigDef()
  .define({
    name: 'exclude',
    type: 'list',
    default: [],
    importance: 'medium',
    documentation: 'Fields to drop. This takes precedence over `include`.',
  })
  .define({
    name: 'include',
    type: 'list',
    default: [],
    importance: 'medium',
    documentation: 'Fields to keep; when set, every other field is dropped.',
  })
  .define({
    name: 'renames',
    type: 'list',
    default: [],
    validator: {
      check: (v) => {
        const bad = (v ?? []).filter((pair) => !/^[^:]+:[^:]+$/.test(pair));
        return bad.length === 0 ? undefined : `has entries that are not from:to: ${bad.join(', ')}`;
      },
      describe: () => 'a comma-separated list of from:to pairs',
    },
    importance: 'medium',
    documentation: 'Field renames, as `from:to` pairs (`foo:bar,abc:xyz`).',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

/** Connect's deprecated names for `exclude` and `include`, still read when the new ones are unset. */
const LEGACY: Readonly<Record<string, string>> = { blacklist: 'exclude', whitelist: 'include' };

export class ReplaceField implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #exclude = new Set<string>();
  #include = new Set<string>();
  #renames = new Map<string, string>();
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const merged: Record<string, string> = { ...props };
    for (const [old, current] of Object.entries(LEGACY)) {
      const legacy = props[old];
      if (legacy !== undefined && props[current] === undefined) merged[current] = legacy;
    }
    const v = REPLACE_FIELD_DEF.parse(merged);
    this.#exclude = new Set(v.exclude);
    this.#include = new Set(v.include);
    this.#renames = new Map(v.renames.map((pair) => pair.split(':') as [string, string]));
    const targets = [...this.#renames.values()];
    const twice = targets.filter((t, i) => targets.indexOf(t) !== i);
    if (twice.length > 0)
      throw problem('renames', `renames two fields to ${twice.join(', ')}`, 'distinct target names');
    this.#replaceNull = v['replace.null.with.default'];
  }

  #keep(name: string): boolean {
    return !this.#exclude.has(name) && (this.#include.size === 0 || this.#include.has(name));
  }

  #renamed(name: string): string {
    return this.#renames.get(name) ?? name;
  }

  apply(record: SinkRecord): SinkRecord {
    const value = this.#side.value(record);
    if (value === null || value === undefined) return record;
    const schema = this.#side.schema(record);
    if (schema === undefined) {
      const map = requireMap(value, PURPOSE);
      const out: Data = {};
      for (const name in map)
        if (Object.hasOwn(map, name) && this.#keep(name)) put(out, this.#renamed(name), map[name]);
      return this.#side.update(record, undefined, out);
    }
    const struct = requireStruct(schema, value, PURPOSE);
    const updated = this.#cache.get(schema, (s) => this.#schema(s));
    const out: Data = {};
    for (const field of schema.fields ?? [])
      if (this.#keep(field.name))
        put(out, this.#renamed(field.name), fieldValue(struct, field, this.#replaceNull));
    return this.#side.update(record, updated, out);
  }

  #schema(source: Schema): Schema {
    const fields: Field[] = [];
    for (const field of source.fields ?? [])
      if (this.#keep(field.name)) fields.push({ name: this.#renamed(field.name), schema: field.schema });
    return structSchema(source, fields);
  }
}
