import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { formatProperties, parseProperties } from '../../../src/config/properties.js';
import { ConfigError } from '../../../src/errors.js';

// Every expected value below was produced by java.util.Properties.load (OpenJDK 17.0.15) on the same text.
describe('parseProperties', () => {
  it('reads comments, separators, whitespace, continuations and escapes as Java does', () => {
    const text = [
      '# comment',
      '! bang comment',
      '   # indented comment',
      'a=1',
      'b : 2',
      'c 3',
      'd=   spaces before   ',
      'e\\',
      '   continued',
      'f=one\\\\',
      'g=two',
      'h = = x',
      'i:=y',
      'j\\ k=key with space',
      'l\\=m=escaped equals',
      'n=\\t\\n\\u0041\\q',
      'o',
      'p=',
      '  q  =  leading',
      'r=line1\\',
      '\\',
      'after-empty',
      's=a\\\\\\',
      '  cont',
      't=#not-comment',
      'u=x\\',
      '# not a comment line',
      'v=\\u00e9€',
      ' w',
      'x=last\\',
    ].join('\n');
    expect(parseProperties(text)).toEqual({
      a: '1',
      b: '2',
      c: '3',
      d: 'spaces before   ',
      econtinued: '',
      f: 'one\\',
      g: 'two',
      h: '= x',
      i: '=y',
      'j k': 'key with space',
      'l=m': 'escaped equals',
      n: '\t\nAq',
      o: '',
      p: '',
      q: 'leading',
      r: 'line1after-empty',
      s: 'a\\cont',
      t: '#not-comment',
      u: 'x# not a comment line',
      v: 'é€',
      w: '',
      x: 'last',
    });
  });

  it('accepts \\r\\n, \\r and \\n line breaks, also inside continuations', () => {
    expect(parseProperties('crlf=a\r\nb=\\\r\n  c\rcr=1\r')).toEqual({ crlf: 'a', b: 'c', cr: '1' });
  });

  it('never continues a comment, and the last duplicate wins', () => {
    expect(parseProperties('k=1\n# comment \\\nnext=2\nk=3')).toEqual({ k: '3', next: '2' });
  });

  it('treats a line after a lone backslash as a new line (a comment there is a comment)', () => {
    expect(parseProperties('\\\n#c\nx=1\n')).toEqual({ x: '1' });
  });

  it('keeps Java quirks at the end of the file: a final continued line counts even when empty', () => {
    expect(parseProperties('#b\\\n \\\n')).toEqual({ '': '' });
    expect(parseProperties('#b\\\n\\\nx=1\n')).toEqual({ x: '1' });
  });

  it('reports every malformed \\u escape with its line', () => {
    let error: unknown;
    try {
      parseProperties('a=1\nb=\\u12G4\n# c\nc\\u00=x');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problemLines()).toEqual([
      'line 2: malformed escape \\u12G4; accepted: \\u followed by 4 hexadecimal digits',
      'line 4: malformed escape \\u00; accepted: \\u followed by 4 hexadecimal digits',
    ]);
  });

  it('parses an empty file, blank lines and comment-only files to nothing', () => {
    expect(parseProperties('')).toEqual({});
    expect(parseProperties('\n  \n\t\f\n# only\n')).toEqual({});
  });
});

describe('formatProperties', () => {
  it('escapes like Properties.store', () => {
    expect(formatProperties({ 'a b': ' x=y:#!\\\t', é: '€' })).toBe(
      'a\\ b=\\ x\\=y\\:\\#\\!\\\\\\t\n\\u00e9=\\u20ac\n',
    );
  });

  fcTest.prop([fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }))])(
    'round-trips through parseProperties',
    (props) => {
      expect(parseProperties(formatProperties(props))).toEqual(props);
    },
  );
});

describe('parseProperties regressions', () => {
  it('keeps a key named __proto__ as a setting (found by the round-trip property)', () => {
    const props = parseProperties('__proto__=x\n');
    expect(Object.keys(props)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
  });
});
