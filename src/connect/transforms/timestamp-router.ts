/** Connect's TimestampRouter: topic names from the record's topic and timestamp, e.g. `orders-20260129`. */
import { ConfigDef } from '../config-def.js';
import { DataError } from '../errors.js';
import type { SinkRecord } from '../sink-record.js';
import { problem } from './common-config.js';
import { JavaDateFormat } from './java-date-format.js';
import type { Transformation } from './transformation.js';

export const TIMESTAMP_ROUTER_DEF = new ConfigDef()
  .define({
    name: 'topic.format',
    type: 'string',
    default: '${topic}-${timestamp}',
    importance: 'high',
    documentation: 'Format of the new topic name: `${topic}` and `${timestamp}` are replaced.',
  })
  .define({
    name: 'timestamp.format',
    type: 'string',
    default: 'yyyyMMdd',
    importance: 'high',
    documentation: 'A java.text.SimpleDateFormat pattern (UTC) for the timestamp.',
  });

export class TimestampRouter implements Transformation {
  #topicFormat = '';
  #format: JavaDateFormat | undefined;

  configure(props: Readonly<Record<string, string>>): void {
    const v = TIMESTAMP_ROUTER_DEF.parse(props);
    this.#topicFormat = v['topic.format'];
    try {
      this.#format = new JavaDateFormat(v['timestamp.format']);
    } catch (error) {
      throw problem(
        'timestamp.format',
        `${JSON.stringify(v['timestamp.format'])}: ${(error as Error).message}`,
        'a java.text.SimpleDateFormat pattern',
      );
    }
  }

  apply(record: SinkRecord): SinkRecord {
    if (record.timestamp === null)
      throw new DataError(
        `Timestamp missing on record: ${record.topic}-${record.partition}@${record.offset}`,
      );
    const timestamp = this.#format!.format(new Date(record.timestamp));
    const topic = this.#topicFormat
      .replaceAll('${topic}', record.topic)
      .replaceAll('${timestamp}', timestamp);
    return record.newRecord({ topic });
  }
}
