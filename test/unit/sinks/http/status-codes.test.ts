import { describe, expect, it } from 'vitest';
import { StatusCodes, classifyStatus } from '../../../../src/sinks/http/status-codes.js';

const parse = (items: string[]): StatusCodes => StatusCodes.parse(items) as StatusCodes;

describe('HTTP status classification', () => {
  it('parses codes and inclusive ranges', () => {
    const set = parse(['408', '429', ' 500 - 599 ']);
    expect([408, 429, 500, 550, 599].map((s) => set.has(s))).toEqual([true, true, true, true, true]);
    expect([407, 430, 499, 400].map((s) => set.has(s))).toEqual([false, false, false, false]);
    expect(set.text).toBe('408,429,500 - 599');
  });

  it('says why a list is not one: a lone entry without repeating it, each bad entry of a longer list', () => {
    expect(StatusCodes.parse(['5xx'])).toBe('is not a status code or a range');
    expect(StatusCodes.parse(['600'])).toBe('is outside 100..599');
    expect(StatusCodes.parse(['099-200'])).toBe('is outside 100..599');
    expect(StatusCodes.parse(['599-500'])).toBe('is a descending range');
    expect(StatusCodes.parse(['408', ' 5xx '])).toBe('has "5xx", which is not a status code or a range');
    expect(StatusCodes.parse(['5xx', '429', '600', '599-500'])).toBe(
      'has "5xx", which is not a status code or a range, "600", which is outside 100..599, and "599-500", which is a descending range',
    );
  });

  it('success wins over retriable; everything else is "other"', () => {
    const success = parse(['200-299']);
    const retriable = parse(['408', '429', '500-599', '202']);
    expect(classifyStatus(202, success, retriable)).toBe('success');
    expect(classifyStatus(503, success, retriable)).toBe('retriable');
    expect(classifyStatus(429, success, retriable)).toBe('retriable');
    expect(classifyStatus(400, success, retriable)).toBe('other');
    expect(classifyStatus(301, success, retriable)).toBe('other');
  });
});
