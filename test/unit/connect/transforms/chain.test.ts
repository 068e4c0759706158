import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { BATCH_INDEX } from '../../../../src/connect/sink-record.js';
import { TransformChain } from '../../../../src/connect/transforms/chain.js';
import { TransformModuleError } from '../../../../src/connect/transforms/errors.js';
import type { PluginSpec, TransformSpec, TransformsConfig } from '../../../../src/connect/transforms/spec.js';
import { rec } from './helpers.js';

const fixture = (name: string): string =>
  new URL(`../../../fixtures/transforms/${name}.ts`, import.meta.url).href;

function builtin(
  alias: string,
  name: string,
  props: Record<string, string> = {},
  extra: Partial<TransformSpec> = {},
): TransformSpec {
  return {
    alias,
    type: name,
    builtin: name,
    module: undefined,
    props,
    predicate: undefined,
    negate: false,
    ...extra,
  };
}

function predicate(alias: string, name: string, props: Record<string, string> = {}): PluginSpec {
  return { alias, type: name, builtin: name, module: undefined, props };
}

const batch = (values: (string | null)[]) => values.map((value, i) => rec({ value, offset: 100 + i }, i));

describe('TransformChain', () => {
  it('runs transforms in order; Filter under a predicate drops only what it matches; negate inverts', async () => {
    const config: TransformsConfig = {
      transforms: [
        builtin('dropTombstones', 'Filter', {}, { predicate: 'tomb' }),
        builtin('hoist', 'HoistField$Value', { field: 'v' }),
        builtin(
          'tag',
          'InsertField$Value',
          { 'static.field': 'tag', 'static.value': 'x' },
          { predicate: 'isOrders', negate: true },
        ),
      ],
      predicates: [
        predicate('tomb', 'RecordIsTombstone'),
        predicate('isOrders', 'TopicNameMatches', { pattern: 'orders' }),
      ],
    };
    const chain = await TransformChain.load(config);
    const records = [...batch(['a', null, 'b']), rec({ topic: 'other', value: 'c' }, 3)];
    const result = chain.apply(records);
    expect(result.dropped).toBe(1);
    expect(result.failures).toEqual([]);
    expect(result.records.map((r) => [r[BATCH_INDEX], r.value])).toEqual([
      [0, { v: 'a' }],
      [2, { v: 'b' }],
      [3, { v: 'c', tag: 'x' }],
    ]);
  });

  it('makes a record errant when a stage throws, naming alias, type and the original coordinates', async () => {
    const chain = await TransformChain.load({
      transforms: [
        builtin('route', 'RegexRouter', { regex: 'orders', replacement: 'renamed' }),
        builtin('cast', 'Cast$Value', { spec: 'int32' }),
      ],
      predicates: [],
    });
    const result = chain.apply(batch(['1', 'x', '3']));
    expect(result.records.map((r) => [r.topic, r.value, r.offset])).toEqual([
      ['renamed', 1, 100],
      ['renamed', 3, 102],
    ]);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.index).toBe(1);
    expect(result.failures[0]!.error.code).toBe('SHARESINK_TRANSFORM_FAILED');
    expect(result.failures[0]!.error.message).toMatch(
      /^transform cast \(Cast\$Value\) failed on orders-3@101: /,
    );
  });

  it('loads a custom transform and predicate from modules, validates with config(), and closes them', async () => {
    const config: TransformsConfig = {
      transforms: [
        {
          alias: 'upper',
          type: './upper-case.ts',
          builtin: undefined,
          module: fixture('upper-case'),
          props: { suffix: '!' },
          predicate: 'short',
          negate: false,
        },
      ],
      predicates: [
        {
          alias: 'short',
          type: './short-value.ts',
          builtin: undefined,
          module: fixture('short-value'),
          props: { max: '3' },
        },
      ],
    };
    const chain = await TransformChain.load(config);
    const result = chain.apply(batch(['ab', 'abcd', 'boom']));
    expect(result.records.map((r) => r.value)).toEqual(['AB!', 'abcd', 'boom']);
    chain.close();

    const bad = {
      ...config,
      transforms: [{ ...config.transforms[0]!, props: { suffix: '' }, predicate: undefined }],
    };
    const chain2 = await TransformChain.load(bad);
    expect(chain2.apply(batch(['boom'])).failures[0]!.error.message).toMatch(/cannot upper-case boom/);
  });

  it('refuses a module that is not a transformation, and bad settings of a custom one, before any record', async () => {
    const notOne: TransformsConfig = {
      transforms: [
        {
          alias: 'x',
          type: 'x',
          builtin: undefined,
          module: fixture('not-a-transform'),
          props: {},
          predicate: undefined,
          negate: false,
        },
      ],
      predicates: [],
    };
    await expect(TransformChain.load(notOne)).rejects.toThrow(TransformModuleError);
    await expect(TransformChain.load(notOne)).rejects.toThrow(/configure\(\) and apply\(\)/);
    const missing = { ...notOne, transforms: [{ ...notOne.transforms[0]!, module: fixture('nope') }] };
    await expect(TransformChain.load(missing)).rejects.toThrow(/Cannot import transform module/);
    const badType = {
      ...notOne,
      transforms: [{ ...notOne.transforms[0]!, module: fixture('upper-case'), props: { suffix: 'x' } }],
    };
    await expect(TransformChain.load(badType)).resolves.toBeInstanceOf(TransformChain);
    const unknownPredicate = {
      transforms: [builtin('f', 'Filter', {}, { predicate: 'nope' })],
      predicates: [],
    };
    await expect(TransformChain.load(unknownPredicate)).rejects.toThrow(ConfigError);
  });

  it('is a no-op without transforms', async () => {
    const chain = await TransformChain.load({ transforms: [], predicates: [] });
    const records = batch(['a']);
    expect(chain.apply(records)).toEqual({ records, dropped: 0, failures: [] });
  });
});
