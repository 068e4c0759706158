import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  ConfigProblem,
  SharesinkError,
  configProblems,
  isSharesinkError,
} from '../../src/errors.js';

describe('SharesinkError', () => {
  it('carries a stable code and its cause', () => {
    const cause = new Error('socket closed');
    const e = new SharesinkError('SHARESINK_CONNECT_ERROR', 'boom', { cause });
    expect(e.code).toBe('SHARESINK_CONNECT_ERROR');
    expect(e.cause).toBe(cause);
    expect(e.name).toBe('SharesinkError');
    expect(isSharesinkError(e)).toBe(true);
    expect(isSharesinkError(new Error('x'))).toBe(false);
  });

  it('ConfigError lists every problem', () => {
    const e = new ConfigError(['tasks.max: "x" is not a number', 'topics: required']);
    expect(e.code).toBe('SHARESINK_CONFIG_INVALID');
    expect(e.message).toContain('2 problems');
    expect(e.message).toContain('  - topics: required');
    expect(e.problems).toHaveLength(2);
  });
});

describe('ConfigProblem', () => {
  it('reads the key, the quoted value and what is accepted out of a problem line, and prints it unchanged', () => {
    const line =
      'transforms.mask.fields: "a,,b" has an empty field; accepted: a comma-separated list of field names';
    const [p] = configProblems([line], 'orders-to-file');
    expect(p).toMatchObject({
      key: 'transforms.mask.fields',
      value: 'a,,b',
      accepted: 'a comma-separated list of field names',
      connector: 'orders-to-file',
      message: '"a,,b" has an empty field; accepted: a comma-separated list of field names',
    });
    expect(String(p)).toBe(`orders-to-file: ${line}`);
    expect(JSON.stringify([p])).toBe(JSON.stringify([`orders-to-file: ${line}`]));
  });

  it('has no key for a problem of the whole config', () => {
    const p = new ConfigProblem('not valid JSON: Unexpected token');
    expect(p).toMatchObject({ key: undefined, value: undefined, accepted: undefined });
    expect(String(p)).toBe('not valid JSON: Unexpected token');
  });

  it('ConfigError keeps its printed text and holds the problems as objects', () => {
    const e = new ConfigError([
      'tasks.max: "0" is less than 1; accepted: [1,...]',
      new ConfigProblem('name: is required'),
    ]);
    expect(e.message).toBe(
      'Invalid configuration (2 problems):\n  - tasks.max: "0" is less than 1; accepted: [1,...]\n  - name: is required',
    );
    expect(e.problems.map((p) => p.key)).toEqual(['tasks.max', 'name']);
    expect(e.problemLines()).toEqual([
      'tasks.max: "0" is less than 1; accepted: [1,...]',
      'name: is required',
    ]);
  });
});
