/** Connect's ValueToKey: the record key becomes a map/struct of some of the value's fields. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyList } from '../config-validators.js';
import { DataError } from '../errors.js';
import type { Field, Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, replaceNullDef } from './common-config.js';
import { fieldOf, fieldValue, fromEntries, get, requireMap, requireStruct, SchemaCache } from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'copying fields from value to key';

export const VALUE_TO_KEY_DEF = new ConfigDef()
  .define({
    name: 'fields',
    type: 'list',
    validator: nonEmptyList('a non-empty comma-separated list of field names'),
    importance: 'high',
    documentation: 'Field names on the record value to extract as the record key.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

export class ValueToKey implements Transformation {
  readonly #cache = new SchemaCache();
  #fields: readonly string[] = [];
  #replaceNull = true;

  configure(props: Readonly<Record<string, string>>): void {
    const v = VALUE_TO_KEY_DEF.parse(props);
    this.#fields = v.fields;
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = record.valueSchema;
    if (schema === undefined) {
      const value = requireMap(record.value, PURPOSE);
      const key = fromEntries(this.#fields.map((name) => [name, get(value, name)]));
      return record.newRecord({ key, keySchema: undefined });
    }
    const value = requireStruct(schema, record.value, PURPOSE);
    const keySchema = this.#cache.get(schema, (s) => this.#keySchema(s));
    const key = fromEntries(
      (keySchema.fields ?? []).map((f) => [f.name, fieldValue(value, f, this.#replaceNull)]),
    );
    return record.newRecord({ key, keySchema });
  }

  #keySchema(valueSchema: Schema): Schema {
    const fields: Field[] = this.#fields.map((name) => {
      const field = fieldOf(valueSchema, name);
      if (field === undefined) throw new DataError(`Field does not exist: ${name}`);
      return field;
    });
    return { type: 'struct', optional: false, fields };
  }
}
