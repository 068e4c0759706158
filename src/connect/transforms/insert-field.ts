/** Connect's InsertField: adds topic, partition, offset, timestamp and a static value as fields. */
import { ConfigDef } from '../config-def.js';
import { LOGICAL, type Field, type Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, replaceNullDef } from './common-config.js';
import {
  copy,
  fieldValue,
  put,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Data,
  type Operating,
} from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'field insertion';
const SUFFIX_DOC = 'Suffix with ! to make this a required field, or ? to keep it optional (the default).';

export const INSERT_FIELD_DEF = new ConfigDef()
  .define({
    name: 'topic.field',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: `Field name for the Kafka topic. ${SUFFIX_DOC}`,
  })
  .define({
    name: 'partition.field',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: `Field name for the Kafka partition. ${SUFFIX_DOC}`,
  })
  .define({
    name: 'offset.field',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: `Field name for the Kafka offset. ${SUFFIX_DOC}`,
  })
  .define({
    name: 'timestamp.field',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: `Field name for the record timestamp. ${SUFFIX_DOC}`,
  })
  .define({
    name: 'static.field',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: `Field name for a static value. ${SUFFIX_DOC}`,
  })
  .define({
    name: 'static.value',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: 'The static value, when `static.field` is set.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

interface InsertSpec {
  readonly name: string;
  readonly optional: boolean;
}

/** `name!` is required, `name?` and `name` optional, as in Connect's InsertField.InsertionSpec. */
function spec(text: string | null): InsertSpec | undefined {
  if (text === null || text === '') return undefined;
  if (text.endsWith('!')) return { name: text.slice(0, -1), optional: false };
  if (text.endsWith('?')) return { name: text.slice(0, -1), optional: true };
  return { name: text, optional: true };
}

const withOptional = (schema: Schema, optional: boolean): Schema => ({ ...schema, optional });

export class InsertField implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #topic: InsertSpec | undefined;
  #partition: InsertSpec | undefined;
  #offset: InsertSpec | undefined;
  #timestamp: InsertSpec | undefined;
  #static: InsertSpec | undefined;
  #staticValue: string | null = null;
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = INSERT_FIELD_DEF.parse(props);
    this.#topic = spec(v['topic.field']);
    this.#partition = spec(v['partition.field']);
    this.#offset = spec(v['offset.field']);
    this.#timestamp = spec(v['timestamp.field']);
    this.#static = spec(v['static.field']);
    this.#staticValue = v['static.value'];
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    const value = this.#side.value(record);
    // tombstones pass unchanged, as in Connect: there is nothing to insert into
    if (value === null || value === undefined) return record;
    const schema = this.#side.schema(record);
    if (schema === undefined) {
      const out = copy(requireMap(value, PURPOSE));
      this.#insert(record, out, false);
      return this.#side.update(record, undefined, out);
    }
    const struct = requireStruct(schema, value, PURPOSE);
    const updated = this.#cache.get(schema, (s) => this.#schema(s));
    const out: Data = {};
    for (const field of schema.fields ?? [])
      put(out, field.name, fieldValue(struct, field, this.#replaceNull));
    this.#insert(record, out, true);
    return this.#side.update(record, updated, out);
  }

  /** A record without timestamp, or no static.value, leaves that field out (null in a struct), as Connect. */
  #insert(record: SinkRecord, out: Data, schemaful: boolean): void {
    if (this.#topic) put(out, this.#topic.name, record.topic);
    if (this.#partition) put(out, this.#partition.name, record.partition);
    if (this.#offset) put(out, this.#offset.name, record.offset);
    const ts = record.timestamp;
    // schema'd: Connect's Timestamp logical type, a Date here; schemaless: the epoch millis
    if (this.#timestamp && ts !== null) put(out, this.#timestamp.name, schemaful ? new Date(ts) : ts);
    if (this.#static && this.#staticValue !== null) put(out, this.#static.name, this.#staticValue);
  }

  #schema(source: Schema): Schema {
    const fields: Field[] = [...(source.fields ?? [])];
    const add = (s: InsertSpec | undefined, schema: Schema): void => {
      if (s) fields.push({ name: s.name, schema: withOptional(schema, s.optional) });
    };
    add(this.#topic, { type: 'string' });
    add(this.#partition, { type: 'int32' });
    add(this.#offset, { type: 'int64' });
    add(this.#timestamp, { type: 'int64', name: LOGICAL.timestamp, version: 1 });
    add(this.#static, { type: 'string' });
    return structSchema(source, fields);
  }
}
