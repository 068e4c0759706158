/** Connect's HeaderFrom: copies or moves fields of the key or value into headers. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyList, oneOf } from '../config-validators.js';
import { DataError } from '../errors.js';
import { ConnectHeaders, type Header } from '../headers.js';
import type { Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, problem, replaceNullDef } from './common-config.js';
import {
  fieldOf,
  fieldValue,
  fromEntries,
  get,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Operating,
} from './data.js';
import type { Transformation } from './transformation.js';

export const HEADER_FROM_DEF = new ConfigDef()
  .define({
    name: 'fields',
    type: 'list',
    validator: nonEmptyList(),
    importance: 'high',
    documentation: 'Field names in the record whose values are to be copied or moved to headers.',
  })
  .define({
    name: 'headers',
    type: 'list',
    validator: nonEmptyList(),
    importance: 'high',
    documentation: 'Header names, in the same order as the field names listed in `fields`.',
  })
  .define({
    name: 'operation',
    type: 'string',
    validator: oneOf(['copy', 'move']),
    importance: 'high',
    documentation: '`move` removes the fields from the record, `copy` keeps them.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

export class HeaderFrom implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #fields: readonly string[] = [];
  #headers: readonly string[] = [];
  #move = false;
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = HEADER_FROM_DEF.parse(props);
    if (v.fields.length !== v.headers.length)
      throw problem(
        'headers',
        `lists ${v.headers.length} names for ${v.fields.length} fields`,
        'as many header names as fields',
      );
    this.#fields = v.fields;
    this.#headers = v.headers;
    this.#move = v.operation === 'move';
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    const purpose = `header ${this.#move ? 'move' : 'copy'}`;
    const headers: Header[] = record.headers.toArray();
    if (schema === undefined) {
      const map = requireMap(value, purpose);
      this.#fields.forEach((name, i) =>
        headers.push({ key: this.#headers[i]!, value: get(map, name), schema: undefined }),
      );
      const updated = this.#move
        ? fromEntries(Object.entries(map).filter(([k]) => !this.#fields.includes(k)))
        : map;
      return this.#side
        .update(record, undefined, updated)
        .newRecord({ headers: new ConnectHeaders(headers) });
    }
    const struct = requireStruct(schema, value, purpose);
    this.#fields.forEach((name, i) => {
      const field = fieldOf(schema, name);
      if (field === undefined) throw new DataError(`${name} is not a valid field name`);
      headers.push({
        key: this.#headers[i]!,
        value: fieldValue(struct, field, this.#replaceNull),
        schema: field.schema,
      });
    });
    let updatedSchema: Schema = schema;
    let updatedValue: unknown = struct;
    if (this.#move) {
      updatedSchema = this.#cache.get(schema, (s) =>
        structSchema(
          s,
          (s.fields ?? []).filter((f) => !this.#fields.includes(f.name)),
        ),
      );
      updatedValue = fromEntries(
        (updatedSchema.fields ?? []).map((f) => [f.name, fieldValue(struct, f, this.#replaceNull)]),
      );
    }
    return this.#side
      .update(record, updatedSchema, updatedValue)
      .newRecord({ headers: new ConnectHeaders(headers) });
  }
}
