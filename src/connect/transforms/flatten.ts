/** Connect's Flatten: nested maps/structs become top-level fields named `outer.inner`. */
import { ConfigDef } from '../config-def.js';
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
    if (schema === undefined) {
      if (value === null || value === undefined) return record;
      const entries: [string, unknown][] = [];
      this.#flattenMap(requireMap(value, PURPOSE), '', entries);
      return this.#side.update(record, undefined, fromEntries(entries));
    }
    const updated = this.#cache.get(schema, (s) => {
      const fields: Field[] = [];
      this.#flattenSchema(s, '', false, fields);
      return structSchema(s, fields);
    });
    if (value === null || value === undefined) return this.#side.update(record, updated, null);
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

  #flattenSchema(schema: Schema, prefix: string, optional: boolean, out: Field[]): void {
    for (const field of schema.fields ?? []) {
      const name = this.#name(prefix, field.name);
      const fieldOptional = optional || (field.schema.optional ?? false);
      if (field.schema.type === 'struct') this.#flattenSchema(field.schema, name, fieldOptional, out);
      else
        out.push({
          name,
          schema:
            fieldOptional === field.schema.optional
              ? field.schema
              : { ...field.schema, optional: fieldOptional },
        });
    }
  }

  #flattenStruct(schema: Schema, struct: Data | null, prefix: string, out: [string, unknown][]): void {
    for (const field of schema.fields ?? []) {
      const name = this.#name(prefix, field.name);
      const v = struct === null ? null : fieldValue(struct, field, true);
      if (field.schema.type === 'struct') this.#flattenStruct(field.schema, isData(v) ? v : null, name, out);
      else out.push([name, v]);
    }
  }
}
