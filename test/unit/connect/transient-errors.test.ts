import { describe, expect, it } from 'vitest';
import { ConnectError } from '../../../src/connect/errors.js';
import { transientCause } from '../../../src/connect/transient-errors.js';

const sys = (code: string, message = `${code} happened`) => Object.assign(new Error(message), { code });

describe('transient failures a task did not classify', () => {
  it('finds a network or disk code on the error, in its cause chain, or in an AggregateError', () => {
    expect(transientCause(sys('ECONNRESET'))).toEqual({ code: 'ECONNRESET', message: 'ECONNRESET happened' });
    expect(
      transientCause(new TypeError('fetch failed', { cause: sys('UND_ERR_CONNECT_TIMEOUT') })),
    ).toMatchObject({
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
    // a dual-stack connect fails with both addresses
    const both = new AggregateError([sys('EADDRNOTAVAIL'), sys('ECONNREFUSED')], 'connect failed');
    expect(transientCause(new Error('outer', { cause: both }))).toMatchObject({ code: 'ECONNREFUSED' });
    expect(transientCause(sys('ENOSPC'))).toMatchObject({ code: 'ENOSPC' });
  });

  it('is undefined for anything else: other codes, plain errors, non-errors, a cycle of causes', () => {
    expect(transientCause(sys('ERR_INVALID_ARG_TYPE'))).toBeUndefined();
    expect(transientCause(new TypeError('x is undefined'))).toBeUndefined();
    expect(transientCause('ECONNREFUSED')).toBeUndefined();
    const a: Error & { cause?: unknown } = new Error('a');
    a.cause = new Error('b', { cause: a });
    expect(transientCause(a)).toBeUndefined();
  });

  it('takes a sharesink error at its word: a ConnectError caused by ECONNREFUSED is the task’s choice', () => {
    expect(transientCause(new ConnectError('gone for good', { cause: sys('ECONNREFUSED') }))).toBeUndefined();
  });
});
