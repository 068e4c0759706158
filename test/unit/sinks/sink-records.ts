/** Sink records for the sink tests: topic `t`, partition 0, offsets counting up from 0 per maker. */
import { SinkRecord } from '../../../src/connect/sink-record.js';

export function recordMaker() {
  let offset = 0;
  return (value: unknown, extra: Partial<ConstructorParameters<typeof SinkRecord>[0]> = {}): SinkRecord =>
    new SinkRecord({
      topic: 't',
      partition: 0,
      offset: offset++,
      timestamp: 0,
      timestampType: 'CreateTime',
      key: null,
      value,
      ...extra,
    });
}
