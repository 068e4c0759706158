/** Connect's HoistField: wraps the key or value in a map/struct with one field. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyString } from '../config-validators.js';
import type { Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fromEntries, SchemaCache, type Operating } from './data.js';
import type { Transformation } from './transformation.js';

export const HOIST_FIELD_DEF = new ConfigDef().define({
  name: 'field',
  type: 'string',
  validator: nonEmptyString(),
  importance: 'medium',
  documentation: 'Field name for the single field of the resulting struct or map.',
});

export class HoistField implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #field = '';

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#field = HOIST_FIELD_DEF.parse(props).field;
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = fromEntries([[this.#field, this.#side.value(record) ?? null]]);
    if (schema === undefined) return this.#side.update(record, undefined, value);
    const hoisted = this.#cache.get(schema, (s): Schema => ({
      type: 'struct',
      optional: false,
      fields: [{ name: this.#field, schema: s }],
    }));
    return this.#side.update(record, hoisted, value);
  }
}
