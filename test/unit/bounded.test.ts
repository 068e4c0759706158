import { describe, expect, it } from 'vitest';
import { dropOldest } from '../../src/bounded.js';

describe('dropOldest', () => {
  it('drops the first-inserted keys of a Map until it holds at most max', () => {
    const m = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    m.delete('a');
    m.set('a', 4); // re-inserted: now the newest
    dropOldest(m, 2);
    expect([...m.keys()]).toEqual(['c', 'a']);
    dropOldest(m, 5);
    expect(m.size).toBe(2);
  });

  it('works on a Set, and empties it at max 0', () => {
    const s = new Set([1, 2, 3, 4]);
    dropOldest(s, 1);
    expect([...s]).toEqual([4]);
    dropOldest(s, 0);
    expect(s.size).toBe(0);
  });
});
