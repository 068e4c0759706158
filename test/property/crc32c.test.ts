// The native CRC-32C (@node-rs/crc32) and the portable JS one agree on every input and sub-range.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c, crc32cImplementation, crc32cPortable } from '../../src/kafka/records/crc32c.js';

describe('crc32c', () => {
  it('runs the native implementation on this machine (CI installs it with npm ci)', () => {
    expect(crc32cImplementation).toBe('native');
  });

  it('native and portable agree on any bytes and any range of them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const buf = Buffer.from(bytes);
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
        expect(crc32c(buf, start, end)).toBe(crc32cPortable(buf, start, end));
        // a view into a larger ArrayBuffer (how fetched batches arrive) gives the same answer
        expect(crc32c(buf.subarray(start, end))).toBe(crc32cPortable(buf, start, end));
      }),
      { numRuns: 500 },
    );
  });
});
