import { describe, expect, it } from 'vitest';
import { membershipChange } from '../../../src/distributed/group/membership-change.js';

const ws = (...ids: string[]) => ids.map((workerId) => ({ workerId }));

describe('membershipChange (the worker group log line after a round)', () => {
  it('names the workers that left and joined', () => {
    expect(membershipChange(ws('a:1', 'b:2', 'c:3'), ws('a:1', 'b:2', 'd:4'))).toEqual({
      left: ['c:3'],
      joined: ['d:4'],
      said: 'c:3 left; d:4 joined; ',
    });
  });

  it('says nothing on the first round or when nobody moved', () => {
    expect(membershipChange([], ws('a:1')).said).toBe('');
    expect(membershipChange(ws('a:1', 'b:2'), ws('b:2', 'a:1')).said).toBe('');
  });
});
