import { describe, expect, it } from 'vitest';
import { duplicateKeys, parseLogLineStrictly } from '../../integration/harness/strict-json.js';

describe('the duplicate-key detector the log tests rely on', () => {
  it('finds a key written twice, at the top or nested, and nothing in clean lines', () => {
    expect(duplicateKeys('{"a":1,"b":2,"a":3}')).toEqual(['a']);
    expect(duplicateKeys('{"o":{"x":1,"x":2},"x":3}')).toEqual(['x']);
    expect(duplicateKeys('{"a":{"b":1},"b":[{"b":1},{"b":2}]}')).toEqual([]);
    // a key-like text inside a string value, escaped quotes included, is not a key
    expect(duplicateKeys('{"msg":"\\"a\\":1, \\"a\\":2","a":1}')).toEqual([]);
    expect(duplicateKeys('{"k\\"":1,"k\\"":2}')).toEqual(['k"']);
  });

  it('parseLogLineStrictly fails where JSON.parse would silently keep the last', () => {
    const line = '{"level":40,"connector":"a","connector":"a","msg":"x"}';
    expect(JSON.parse(line)).toMatchObject({ connector: 'a' });
    expect(() => parseLogLineStrictly(line)).toThrow(/duplicate key\(s\) "connector"/);
    expect(() => parseLogLineStrictly('[1]')).toThrow(/not a JSON object/);
    expect(parseLogLineStrictly('{"level":30,"msg":"ok"}')).toEqual({ level: 30, msg: 'ok' });
  });
});
