/** The placement rules without threads: least busy first, room per thread, a task's own puts spread. */
import { describe, expect, it } from 'vitest';
import { ThreadBalancer, type PlacementWorker } from '../../../src/pool/thread-balancer.js';

const workers = (...ids: number[]): PlacementWorker[] =>
  ids.map((id) => ({ id, terminating: false, destroyed: false }));

describe('ThreadBalancer', () => {
  it('an idle thread wins over a busy one, so a CPU-bound put gets a core of its own', () => {
    const p = new ThreadBalancer(4);
    const ws = workers(1, 2);
    expect(p.choose({ putId: 1, taskId: 'a' }, ws)?.id).toBe(1);
    expect(p.choose({ putId: 2, taskId: 'b' }, ws)?.id).toBe(2);
    expect(p.countOn(1)).toBe(1);
    expect(p.countOn(2)).toBe(1);
  });

  it('with every thread busy, the least busy one takes the put', () => {
    const p = new ThreadBalancer(8);
    const ws = workers(1, 2);
    for (let i = 0; i < 3; i++) p.choose({ putId: i, taskId: `t${i}` }, [ws[0]!]);
    p.choose({ putId: 10, taskId: 'x' }, [ws[1]!]);
    expect(p.choose({ putId: 11, taskId: 'y' }, ws)?.id).toBe(2);
  });

  it('never places more than perThread puts on a thread; with no room it answers null', () => {
    const p = new ThreadBalancer(2);
    const ws = workers(1);
    expect(p.choose({ putId: 1, taskId: 'a' }, ws)?.id).toBe(1);
    expect(p.choose({ putId: 2, taskId: 'b' }, ws)?.id).toBe(1);
    expect(p.choose({ putId: 3, taskId: 'c' }, ws)).toBeNull();
    p.settled(1);
    expect(p.choose({ putId: 3, taskId: 'c' }, ws)?.id).toBe(1);
  });

  it('prefers a thread where the task is not putting already, where its instance is free', () => {
    const p = new ThreadBalancer(8);
    const ws = workers(1, 2);
    p.choose({ putId: 1, taskId: 'a' }, [ws[0]!]);
    p.choose({ putId: 2, taskId: 'b' }, [ws[1]!]);
    // equally busy: thread 2 has no put of task a
    expect(p.choose({ putId: 3, taskId: 'a' }, ws)?.id).toBe(2);
  });

  it('skips threads that are terminating or destroyed', () => {
    const p = new ThreadBalancer(4);
    const ws: PlacementWorker[] = [
      { id: 1, terminating: true, destroyed: false },
      { id: 2, terminating: false, destroyed: true },
      { id: 3, terminating: false, destroyed: false },
    ];
    expect(p.choose({ putId: 1, taskId: 'a' }, ws)?.id).toBe(3);
  });

  it('knows where a put runs until it settles', () => {
    const p = new ThreadBalancer(4);
    p.choose({ putId: 7, taskId: 'a' }, workers(5));
    expect(p.threadOf(7)).toBe(5);
    p.settled(7);
    expect(p.threadOf(7)).toBeUndefined();
    expect(p.countOn(5)).toBe(0);
  });

  it("oneThreadPerTask: a task's puts stay on its thread while it has room; other tasks still spread", () => {
    const p = new ThreadBalancer(3, true);
    const ws = workers(1, 2);
    expect(p.choose({ putId: 1, taskId: 'a' }, ws)?.id).toBe(1);
    // thread 2 is idle, but task a's instance lives on thread 1
    expect(p.choose({ putId: 2, taskId: 'a' }, ws)?.id).toBe(1);
    expect(p.choose({ putId: 3, taskId: 'b' }, ws)?.id).toBe(2);
    expect(p.choose({ putId: 4, taskId: 'a' }, ws)?.id).toBe(1);
    // thread 1 is full: a's next put goes elsewhere, and a's home moves there
    expect(p.choose({ putId: 5, taskId: 'a' }, ws)?.id).toBe(2);
    p.settled(1);
    expect(p.choose({ putId: 6, taskId: 'a' }, ws)?.id).toBe(2);
  });

  it('oneThreadPerTask: a task whose thread is gone gets a new one', () => {
    const p = new ThreadBalancer(4, true);
    expect(p.choose({ putId: 1, taskId: 'a' }, workers(1, 2))?.id).toBe(1);
    const replaced = [
      { id: 1, terminating: true, destroyed: false },
      { id: 2, terminating: false, destroyed: false },
    ];
    expect(p.choose({ putId: 2, taskId: 'a' }, replaced)?.id).toBe(2);
    expect(p.choose({ putId: 3, taskId: 'a' }, workers(2, 3))?.id).toBe(2);
  });

  it('without oneThreadPerTask a second put of one task goes to the idle thread', () => {
    const p = new ThreadBalancer(3);
    const ws = workers(1, 2);
    expect(p.choose({ putId: 1, taskId: 'a' }, ws)?.id).toBe(1);
    expect(p.choose({ putId: 2, taskId: 'a' }, ws)?.id).toBe(2);
  });
});
