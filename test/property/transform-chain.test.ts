/**
 * Ack accounting through any transform chain: every fetched record ends up exactly once as put, dropped
 * or errant, and what is put still carries its own batch index and coordinates (so acks reach the
 * original topic-partition-offset even after a router renamed the topic).
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { ConnectHeaders } from '../../src/connect/headers.js';
import { BATCH_INDEX, SinkRecord } from '../../src/connect/sink-record.js';
import { TransformChain } from '../../src/connect/transforms/chain.js';
import type { PluginSpec, TransformSpec } from '../../src/connect/transforms/spec.js';

const PREDICATES: PluginSpec[] = [
  { alias: 'tomb', type: 'RecordIsTombstone', builtin: 'RecordIsTombstone', module: undefined, props: {} },
  {
    alias: 'isA',
    type: 'TopicNameMatches',
    builtin: 'TopicNameMatches',
    module: undefined,
    props: { pattern: 'a.*' },
  },
  {
    alias: 'traced',
    type: 'HasHeaderKey',
    builtin: 'HasHeaderKey',
    module: undefined,
    props: { name: 'trace' },
  },
];

const STAGES: Omit<TransformSpec, 'alias' | 'predicate' | 'negate'>[] = [
  { type: 'Filter', builtin: 'Filter', module: undefined, props: {} },
  { type: 'Cast$Value', builtin: 'Cast$Value', module: undefined, props: { spec: 'n:int32' } },
  {
    type: 'InsertField$Value',
    builtin: 'InsertField$Value',
    module: undefined,
    props: { 'topic.field': 't' },
  },
  { type: 'MaskField$Value', builtin: 'MaskField$Value', module: undefined, props: { fields: 'n' } },
  {
    type: 'RegexRouter',
    builtin: 'RegexRouter',
    module: undefined,
    props: { regex: '(a|b)(.*)', replacement: '$2-$1' },
  },
  { type: 'ExtractField$Value', builtin: 'ExtractField$Value', module: undefined, props: { field: 'n' } },
  { type: 'HoistField$Value', builtin: 'HoistField$Value', module: undefined, props: { field: 'n' } },
];

const stage = fc.record({
  which: fc.nat({ max: STAGES.length - 1 }),
  predicate: fc.option(fc.constantFrom('tomb', 'isA', 'traced'), { nil: undefined }),
  negate: fc.boolean(),
});

const value = fc.oneof(
  fc.constant(null),
  fc.string(),
  fc.integer(),
  fc.record({ n: fc.oneof(fc.integer(), fc.string(), fc.constant(null)) }),
);

const record = fc.record({
  topic: fc.constantFrom('a1', 'b2', 'c3'),
  partition: fc.nat({ max: 3 }),
  value,
  traced: fc.boolean(),
});

test.prop([fc.array(stage, { maxLength: 6 }), fc.array(record, { maxLength: 40 })])(
  'put + dropped + errant = fetched, each record once, with its own coordinates',
  async (stages, inputs) => {
    const chain = await TransformChain.load({
      transforms: stages.map((s, i) => ({
        ...STAGES[s.which]!,
        alias: `s${i}`,
        predicate: s.predicate,
        negate: s.negate,
      })),
      predicates: PREDICATES,
    });
    const records = inputs.map(
      (r, i) =>
        new SinkRecord(
          {
            topic: r.topic,
            partition: r.partition,
            offset: 1000 + i,
            timestamp: 0,
            timestampType: 'CreateTime',
            key: null,
            value: r.value,
            headers: r.traced
              ? new ConnectHeaders([{ key: 'trace', value: 'x', schema: undefined }])
              : undefined,
          },
          i,
        ),
    );
    const result = chain.apply(records);
    expect(result.records.length + result.dropped + result.failures.length).toBe(records.length);
    const seen = [...result.records.map((r) => r[BATCH_INDEX]!), ...result.failures.map((f) => f.index)];
    expect(new Set(seen).size).toBe(seen.length);
    for (const r of result.records) {
      const original = records[r[BATCH_INDEX]!]!;
      expect([r.partition, r.offset]).toEqual([original.partition, original.offset]);
    }
    for (const f of result.failures) expect(f.error.offset).toBe(records[f.index]!.offset);
    chain.close();
  },
);
