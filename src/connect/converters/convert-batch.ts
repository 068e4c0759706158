import { ConnectHeaders, type Header } from '../headers.js';
import { ConverterError } from '../errors.js';
import type { RawRecord } from '../raw-record.js';
import { SinkRecord } from '../sink-record.js';
import type { LoadedConverters } from './registry.js';

export interface ConversionFailure {
  /** Position of the record in the input batch. */
  readonly index: number;
  readonly error: ConverterError;
}

export interface ConvertedBatch {
  /** The records that converted, in input order; each remembers its input index for acks. */
  readonly records: SinkRecord[];
  readonly failures: ConversionFailure[];
}

/**
 * Lets the key and value converters fetch what the batch needs (schemas by id) before `convertBatch`:
 * one await per batch and converter that asks for it, none for the others.
 */
export async function prepareBatch(raws: readonly RawRecord[], converters: LoadedConverters): Promise<void> {
  const { key, value } = converters;
  if (key.prepareBatch === undefined && value.prepareBatch === undefined) return;
  const work: Promise<void>[] = [];
  if (key.prepareBatch !== undefined) work.push(key.prepareBatch(raws.map((r) => r.key)));
  if (value.prepareBatch !== undefined) work.push(value.prepareBatch(raws.map((r) => r.value)));
  await Promise.all(work);
}

/**
 * Converts a whole batch with one plain loop. A record whose key, value or a header fails to convert
 * is left out of `records` and listed in `failures`; the rest of the batch is unaffected.
 */
export function convertBatch(raws: readonly RawRecord[], converters: LoadedConverters): ConvertedBatch {
  const records: SinkRecord[] = [];
  const failures: ConversionFailure[] = [];
  const { key: keyConverter, value: valueConverter, header: headerConverter, names } = converters;
  for (let index = 0; index < raws.length; index++) {
    const raw = raws[index]!;
    let part: 'key' | 'value' | 'header' = 'key';
    try {
      const key = keyConverter.toConnectData(raw.topic, raw.key);
      part = 'value';
      const value = valueConverter.toConnectData(raw.topic, raw.value);
      part = 'header';
      let headers = ConnectHeaders.EMPTY;
      if (raw.headers.length > 0) {
        const converted: Header[] = new Array<Header>(raw.headers.length);
        for (let h = 0; h < raw.headers.length; h++) {
          const header = raw.headers[h]!;
          const sv = headerConverter.toConnectHeader(raw.topic, header.key, header.value);
          converted[h] = { key: header.key, value: sv.value, schema: sv.schema };
        }
        headers = new ConnectHeaders(converted);
      }
      records.push(
        new SinkRecord(
          {
            topic: raw.topic,
            partition: raw.partition,
            offset: raw.offset,
            timestamp: raw.timestamp,
            timestampType: raw.timestampType,
            key: key.value,
            keySchema: key.schema,
            value: value.value,
            valueSchema: value.schema,
            headers,
            deliveryCount: raw.deliveryCount,
          },
          index,
        ),
      );
    } catch (cause) {
      failures.push({ index, error: new ConverterError(raw, names[part], part, { cause }) });
    }
  }
  return { records, failures };
}
