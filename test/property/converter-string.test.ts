import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { StringConverter } from '../../src/connect/converters/string-converter.js';

const converter = new StringConverter();
converter.configure({}, false);

describe('StringConverter round-trips UTF-8', () => {
  test.prop([fc.string({ unit: 'binary' })])('string → bytes → string', (text) => {
    const bytes = converter.fromConnectData('t', undefined, text);
    expect(converter.toConnectData('t', bytes).value).toBe(text);
  });

  test.prop([fc.string({ unit: 'binary' })])('valid UTF-8 bytes → string → the same bytes', (text) => {
    const bytes = Buffer.from(text, 'utf8');
    const back = converter.fromConnectData('t', undefined, converter.toConnectData('t', bytes).value);
    expect(Buffer.compare(Buffer.from(back!), bytes)).toBe(0);
  });

  test.prop([fc.uint8Array({ maxLength: 64 })])('any bytes decode without throwing', (bytes) => {
    expect(typeof converter.toConnectData('t', bytes).value).toBe('string');
  });
});
