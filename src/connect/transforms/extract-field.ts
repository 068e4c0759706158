/** Connect's ExtractField: the key or value becomes one of its fields. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyString } from '../config-validators.js';
import { DataError } from '../errors.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, replaceNullDef } from './common-config.js';
import { fieldOf, fieldValue, get, requireMapOrNull, requireStructOrNull, type Operating } from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'field extraction';

export const EXTRACT_FIELD_DEF = new ConfigDef()
  .define({
    name: 'field',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'medium',
    documentation: 'Field name to extract.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

export class ExtractField implements Transformation {
  readonly #side: Operating;
  #field = '';
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = EXTRACT_FIELD_DEF.parse(props);
    this.#field = v.field;
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    if (schema === undefined) {
      const map = requireMapOrNull(value, PURPOSE);
      return this.#side.update(record, undefined, map === null ? null : get(map, this.#field));
    }
    const struct = requireStructOrNull(schema, value, PURPOSE);
    const field = fieldOf(schema, this.#field);
    if (field === undefined) throw new DataError(`Unknown field: ${this.#field}`);
    return this.#side.update(
      record,
      field.schema,
      struct === null ? null : fieldValue(struct, field, this.#replaceNull),
    );
  }
}
