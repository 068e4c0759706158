import { ConfigDef } from '../config-def.js';
import { oneOf } from '../config-validators.js';
import { Schemas, type Schema, type SchemaAndValue } from '../schema.js';
import { asBuffer, ValueAndHeaderConverter } from './converter.js';

const ENCODINGS: Record<string, BufferEncoding> = {
  'utf-8': 'utf8',
  utf8: 'utf8',
  'utf-16le': 'utf16le',
  utf16le: 'utf16le',
  'iso-8859-1': 'latin1',
  latin1: 'latin1',
  'us-ascii': 'ascii',
  ascii: 'ascii',
};

const CONFIG = new ConfigDef()
  .define({
    name: 'converter.encoding',
    type: 'string',
    default: 'UTF-8',
    validator: oneOf(Object.keys(ENCODINGS), { caseInsensitive: true }),
    importance: 'high',
    documentation: 'Character set of the bytes.',
  })
  .define({
    name: 'encoding',
    type: 'string',
    default: null,
    validator: oneOf(Object.keys(ENCODINGS), { caseInsensitive: true }),
    importance: 'low',
    documentation: 'Short form of converter.encoding; wins when both are set.',
  });

/**
 * Connect's StringConverter. Like Java's `new String(bytes, charset)`, malformed input decodes to
 * replacement characters rather than failing. Also a header converter, as in Connect.
 */
export class StringConverter extends ValueAndHeaderConverter {
  #encoding: BufferEncoding = 'utf8';

  configure(configs: Readonly<Record<string, string>>, _isKey = false): void {
    const parsed = CONFIG.parse(configs);
    const name = (parsed.encoding ?? parsed['converter.encoding']).toLowerCase();
    this.#encoding = ENCODINGS[name] ?? 'utf8';
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    return {
      schema: Schemas.OPTIONAL_STRING,
      value: bytes === null ? null : asBuffer(bytes).toString(this.#encoding),
    };
  }

  fromConnectData(_topic: string, _schema: Schema | undefined, value: unknown): Uint8Array | null {
    return value === null || value === undefined ? null : Buffer.from(String(value), this.#encoding);
  }
}
