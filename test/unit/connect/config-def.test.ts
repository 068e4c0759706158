import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import type { Password } from '../../../src/connect/config-def.js';
import { ConfigDef } from '../../../src/connect/config-def.js';
import { atLeast, between, listOf, nonEmptyString, oneOf } from '../../../src/connect/config-validators.js';

const def = new ConfigDef()
  .define({
    name: 'name',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'high',
    documentation: 'Name.',
  })
  .define({
    name: 'tasks.max',
    type: 'int',
    default: 1,
    validator: atLeast(1),
    importance: 'high',
    documentation: 'Tasks.',
  })
  .define({ name: 'retry.ms', type: 'long', default: 0, importance: 'low', documentation: 'Retry.' })
  .define({
    name: 'ratio',
    type: 'double',
    default: 0.5,
    validator: between(0, 1),
    importance: 'low',
    documentation: 'R.',
  })
  .define({ name: 'enabled', type: 'boolean', default: true, importance: 'low', documentation: 'E.' })
  .define({ name: 'topics', type: 'list', default: [], importance: 'high', documentation: 'Topics.' })
  .define({ name: 'secret', type: 'password', default: null, importance: 'medium', documentation: 'S.' })
  .define({ name: 'connector.class', type: 'class', importance: 'high', documentation: 'C.' })
  .define({
    name: 'errors.tolerance',
    type: 'string',
    default: 'none',
    validator: oneOf(['none', 'all']),
    importance: 'medium',
    documentation: 'T.',
  })
  .define({
    name: 'modes',
    type: 'list',
    default: ['a'],
    validator: listOf(['a', 'b']),
    importance: 'low',
    documentation: 'M.',
  });

describe('ConfigDef', () => {
  it('parses every type from strings and applies defaults', () => {
    const values = def.parse({
      name: ' sink ',
      'tasks.max': '4',
      'retry.ms': '9007199254740991',
      ratio: '0.25',
      enabled: 'FALSE',
      topics: ' a , b,c ',
      secret: 's3cret',
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'unknown.key': 'ignored',
    });
    expect(values).toMatchObject({
      name: 'sink',
      'tasks.max': 4,
      'retry.ms': Number.MAX_SAFE_INTEGER,
      ratio: 0.25,
      enabled: false,
      topics: ['a', 'b', 'c'],
      'errors.tolerance': 'none',
      modes: ['a'],
    });
    expect(values.secret?.value()).toBe('s3cret');
    expect(String(values.secret)).toBe('[hidden]');
    expect(JSON.stringify({ s: values.secret })).toBe('{"s":"[hidden]"}');
    expect(def.parse({ name: 'x', 'connector.class': 'C', topics: '' }).topics).toEqual([]);
  });

  it('types parse() results from the definitions', () => {
    const values = def.parse({ name: 'x', 'connector.class': 'C' });
    expectTypeOf(values['tasks.max']).toEqualTypeOf<number>();
    expectTypeOf(values.secret).toEqualTypeOf<Password | null>();
    expectTypeOf(values.topics).toEqualTypeOf<string[]>();
    expectTypeOf(values.enabled).toEqualTypeOf<boolean>();
  });

  it('lists every problem at once with key, bad value and what is accepted', () => {
    let error: unknown;
    try {
      def.parse({
        'tasks.max': '0',
        'retry.ms': '1.5',
        ratio: '2',
        enabled: 'yes',
        secret: 'x',
        'errors.tolerance': 'some',
        modes: 'a,c',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problemLines()).toEqual([
      'name: is required and has no value; accepted: a string, a non-empty string',
      'tasks.max: "0" is less than 1; accepted: a 32-bit integer, [1,...]',
      `retry.ms: "1.5" is not an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}; accepted: an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
      'ratio: "2" is outside 0..1; accepted: a finite number, [0,...,1]',
      'enabled: "yes" is not true or false; accepted: true or false',
      'connector.class: is required and has no value; accepted: a class name or module specifier',
      'errors.tolerance: "some" is not one of the accepted values; accepted: a string, one of none, all',
      'modes: "a,c" contains "c"; accepted: a comma-separated list, a comma-separated list of a, b',
    ]);
    const [name, tasksMax] = (error as ConfigError).problems;
    expect({ ...name }).toEqual({
      key: 'name',
      message: 'is required and has no value; accepted: a string, a non-empty string',
      value: undefined,
      accepted: 'a string, a non-empty string',
      connector: undefined,
    });
    expect({ ...tasksMax }).toMatchObject({
      key: 'tasks.max',
      value: '0',
      accepted: 'a 32-bit integer, [1,...]',
    });
  });

  it('never shows a password value in a problem', () => {
    const secretDef = new ConfigDef().define({
      name: 'pw',
      type: 'password',
      validator: { check: () => 'is too weak', describe: () => 'a strong password' },
      importance: 'high',
      documentation: 'P.',
    });
    expect(() => secretDef.parse({ pw: 'hunter2' })).toThrow(/pw: "\[hidden\]" is too weak/);
    expect(() => secretDef.parse({ pw: 'hunter2' })).not.toThrow(/hunter2/);
  });

  it('rejects ints outside 32 bits, non-finite doubles and junk numbers', () => {
    const nums = new ConfigDef()
      .define({ name: 'i', type: 'int', default: 0, importance: 'low', documentation: '' })
      .define({ name: 'd', type: 'double', default: 0, importance: 'low', documentation: '' });
    expect(nums.validate({ i: '2147483648', d: 'Infinity' }).size).toBe(2);
    expect(nums.validate({ i: '12abc', d: '1e3' }).get('i')).toHaveLength(1);
    expect(nums.parse({ i: '-2147483648', d: '-1.5e-3' })).toEqual({ i: -(2 ** 31), d: -0.0015 });
  });

  it('exposes its keys for documentation and merges definitions', () => {
    const more = new ConfigDef().define({
      name: 'file',
      type: 'string',
      default: null,
      importance: 'high',
      documentation: 'F.',
    });
    const merged = def.merge(more);
    expect(merged.configKeys().map((k) => k.name)).toContain('file');
    expect(merged.configKeys().find((k) => k.name === 'name')).toMatchObject({
      required: true,
      type: 'string',
    });
    expect(() => merged.merge(more)).toThrow(/defined twice/);
  });

  it('checks defaults against their validator when defining', () => {
    expect(() =>
      new ConfigDef().define({
        name: 'n',
        type: 'int',
        default: 0,
        validator: atLeast(1),
        importance: 'low',
        documentation: '',
      }),
    ).toThrow(/Default of n is less than 1/);
  });
});
