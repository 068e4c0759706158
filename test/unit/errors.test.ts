import { describe, expect, it } from 'vitest';
import { ConfigError, SharesinkError, isSharesinkError } from '../../src/errors.js';

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
