/** Connect's InsertHeader: adds a header with a literal value. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyString } from '../config-validators.js';
import { SimpleHeaderConverter } from '../converters/simple-header-converter.js';
import type { SchemaAndValue } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import type { Transformation } from './transformation.js';

export const INSERT_HEADER_DEF = new ConfigDef()
  .define({
    name: 'header',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'high',
    documentation: 'The name of the header.',
  })
  .define({
    name: 'value.literal',
    type: 'string',
    importance: 'high',
    documentation:
      "The header's value, parsed as Connect's Values.parseString does (so `42` is an int8, `true` a boolean, anything else text).",
  });

export class InsertHeader implements Transformation {
  #header = '';
  #literal: SchemaAndValue = { schema: undefined, value: null };

  configure(props: Readonly<Record<string, string>>): void {
    const v = INSERT_HEADER_DEF.parse(props);
    this.#header = v.header;
    // the same parsing Connect applies to header text: SimpleHeaderConverter is its port
    this.#literal = new SimpleHeaderConverter().toConnectHeader(
      '',
      v.header,
      Buffer.from(v['value.literal'], 'utf8'),
    );
  }

  apply(record: SinkRecord): SinkRecord {
    return record.newRecord({
      headers: record.headers.with(this.#header, this.#literal.value, this.#literal.schema),
    });
  }
}
