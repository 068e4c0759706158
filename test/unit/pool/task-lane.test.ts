import { describe, expect, it } from 'vitest';
import { TaskLane } from '../../../src/pool/task-lane.js';

const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('TaskLane', () => {
  it('runs turns in the order they came, each after the one before has returned', async () => {
    const lane = new TaskLane();
    const order: string[] = [];
    await Promise.all([
      lane.turn(async () => {
        await later(30);
        order.push('slow first');
      }),
      lane.turn(async () => {
        order.push('fast second');
      }),
    ]);
    expect(order).toEqual(['slow first', 'fast second']);
  });

  it('a failed turn does not stop the next one', async () => {
    const lane = new TaskLane();
    const failed = lane.turn(() => Promise.reject(new Error('boom')));
    const next = lane.turn(async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('room(limit) waits while `limit` tracked puts run; drain() waits for all of them', async () => {
    const lane = new TaskLane();
    let done1!: () => void;
    let done2!: () => void;
    lane.track(new Promise<void>((r) => (done1 = r)));
    lane.track(new Promise<void>((r) => (done2 = r)));
    let roomed = false;
    const room = lane.room(2).then(() => (roomed = true));
    await later(10);
    expect(roomed).toBe(false);
    expect(await Promise.race([lane.room(3).then(() => 'free'), later(10).then(() => 'waited')])).toBe(
      'free',
    );
    done1();
    await room;
    expect(roomed).toBe(true);
    let drained = false;
    const drain = lane.drain().then(() => (drained = true));
    await later(10);
    expect(drained).toBe(false);
    done2();
    await drain;
    expect(drained).toBe(true);
  });
});
