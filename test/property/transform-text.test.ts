/** The Java text formats the transforms speak: dates in SimpleDateFormat patterns, floats as Java prints them. */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { JavaDateFormat } from '../../src/connect/transforms/java-date-format.js';
import { javaDouble, javaFloat } from '../../src/connect/transforms/java-text.js';

const dates = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) });

test.prop([
  dates,
  fc.constantFrom(
    "yyyy-MM-dd'T'HH:mm:ss.SSSX",
    'yyyyMMddHHmmssSSS',
    'dd MMM yyyy HH:mm:ss.SSS Z',
    'yyyy-DDD hh:mm:ss.SSS a',
  ),
])('format then parse gives the same instant', (ms, pattern) => {
  const format = new JavaDateFormat(pattern);
  expect(format.parse(format.format(new Date(ms)))).toBe(ms);
});

test.prop([fc.float({ noNaN: true, noDefaultInfinity: true })])(
  'javaFloat reads back as the same float32',
  (f) => {
    expect(Math.fround(Number(javaFloat(f)))).toBe(Math.fround(f));
  },
);

test.prop([fc.double({ noNaN: true, noDefaultInfinity: true })])(
  'javaDouble reads back as the same double',
  (d) => {
    expect(Number(javaDouble(d))).toBe(d);
  },
);
