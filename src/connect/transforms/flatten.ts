/** Connect's Flatten: nested maps/structs become top-level fields named `outer.inner`. */
import { ConfigDef } from '../config-def.js';
import { DataError } from '../errors.js';
import type { Field, Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import {
  fieldValue,
  fromEntries,
  isData,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Data,
  type Operating,
} from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'flattening';

export const FLATTEN_DEF = new ConfigDef().define({
  name: 'delimiter',
  type: 'string',
  default: '.',
  importance: 'medium',
  documentation: 'Delimiter between the names of nested fields in the flattened field names.',
});

export class Flatten implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #delimiter = '.';

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#delimiter = FLATTEN_DEF.parse(props).delimiter;
  }

  #name(prefix: string, name: string): string {
    return prefix === '' ? name : prefix + this.#delimiter + name;
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    if (value === null || value === undefined) return record;
    if (schema === undefined) {
      const entries: [string, unknown][] = [];
      this.#flattenMap(requireMap(value, PURPOSE), '', entries);
      return this.#side.update(record, undefined, fromEntries(entries));
    }
    const updated = this.#cache.get(schema, (s) => {
      const fields: Field[] = [];
      this.#flattenSchema(s, '', s.optional ?? false, isData(s.default) ? s.default : null, fields);
      return structSchema(s, fields);
    });
    const entries: [string, unknown][] = [];
    this.#flattenStruct(schema, requireStruct(schema, value, PURPOSE), '', entries);
    return this.#side.update(record, updated, fromEntries(entries));
  }

  #flattenMap(map: Data, prefix: string, out: [string, unknown][]): void {
    for (const [key, v] of Object.entries(map)) {
      const name = this.#name(prefix, key);
      if (isData(v)) this.#flattenMap(v, name, out);
      else out.push([name, v ?? null]);
    }
  }

  /**
   * The flattened fields: a field is optional when it or any ancestor is, and takes its own default,
   * else the one its ancestors' defaults give it, as in Connect. Maps have no flat form with a schema.
   */
  #flattenSchema(
    schema: Schema,
    prefix: string,
    optional: boolean,
    parentDefault: Data | null,
    out: Field[],
  ): void {
    for (const field of schema.fields ?? []) {
      const name = this.#name(prefix, field.name);
      const fieldOptional = optional || (field.schema.optional ?? false);
      const own = field.schema.default;
      const inherited = parentDefault === null ? undefined : parentDefault[field.name];
      const fieldDefault = own !== undefined && own !== null ? own : inherited;
      if (field.schema.type === 'map')
        throw new DataError(
          `Flatten transformation does not support map for record with schemas (for field ${name}).`,
        );
      if (field.schema.type === 'struct') {
        this.#flattenSchema(
          field.schema,
          name,
          fieldOptional,
          isData(fieldDefault) ? fieldDefault : null,
          out,
        );
        continue;
      }
      const flat: { -readonly [K in keyof Schema]: Schema[K] } = { ...field.schema, optional: fieldOptional };
      if (fieldDefault === undefined || fieldDefault === null) delete flat.default;
      else flat.default = fieldDefault;
      out.push({ name, schema: flat });
    }
  }

  /** Values by the flattened schema's order; fields of a null nested struct read as their default. */
  #flattenStruct(schema: Schema, struct: Data | null, prefix: string, out: [string, unknown][]): void {
    for (const field of schema.fields ?? []) {
      const name = this.#name(prefix, field.name);
      const v = struct === null ? null : fieldValue(struct, field, true);
      if (field.schema.type === 'struct') this.#flattenStruct(field.schema, isData(v) ? v : null, name, out);
      else out.push([name, v]);
    }
  }
}
