import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { SimulatedClock, systemClock } from '../../../../../src/actors/task/core/clock.js';

describe('SimulatedClock', () => {
  it('runs each timer at its own due time, in (due, creation) order', () => {
    const clock = new SimulatedClock(100);
    const seen: [string, number][] = [];
    clock.setTimeout(() => seen.push(['b', clock.now()]), 20);
    clock.setTimeout(() => seen.push(['a', clock.now()]), 10);
    clock.setTimeout(() => seen.push(['c', clock.now()]), 20);
    clock.advance(15);
    expect(seen).toEqual([['a', 110]]);
    expect(clock.now()).toBe(115);
    clock.advanceTo(200);
    expect(seen).toEqual([
      ['a', 110],
      ['b', 120],
      ['c', 120],
    ]);
    expect(clock.now()).toBe(200);
  });

  it('runs timers scheduled by callbacks when they fall inside the advance', () => {
    const clock = new SimulatedClock();
    const seen: number[] = [];
    const tick = () => {
      seen.push(clock.now());
      if (seen.length < 3) clock.setTimeout(tick, 10);
    };
    clock.setTimeout(tick, 10);
    clock.advance(100);
    expect(seen).toEqual([10, 20, 30]);
  });

  it('clears timers, refuses to go back, and bounds runAll', () => {
    const clock = new SimulatedClock();
    const h = clock.setTimeout(() => expect.unreachable(), 5);
    expect(clock.nextDueAt()).toBe(5);
    clock.clearTimeout(h);
    clock.runAll();
    expect(clock.pending).toBe(0);
    expect(() => clock.advanceTo(-1)).toThrow(RangeError);
    const forever = () => clock.setTimeout(forever, 1);
    forever();
    expect(() => clock.runAll(50)).toThrow(/more than 50/);
  });

  it("serves as XState's clock for delayed transitions", () => {
    const clock = new SimulatedClock();
    const m = createMachine({ initial: 'a', states: { a: { after: { 1000: 'b' } }, b: {} } });
    const actor = createActor(m, { clock }).start();
    clock.advance(999);
    expect(actor.getSnapshot().value).toBe('a');
    clock.advance(1);
    expect(actor.getSnapshot().value).toBe('b');
  });
});

describe('systemClock', () => {
  it('reads wall-clock milliseconds and its timers fire', async () => {
    const t0 = systemClock.now();
    expect(Math.abs(t0 - Date.now())).toBeLessThan(1_000);
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 2));
    expect(systemClock.now()).toBeGreaterThanOrEqual(t0);
    const h = systemClock.setTimeout(() => expect.unreachable(), 1);
    systemClock.clearTimeout(h);
  });

  it('never hands Node a delay it would clamp to 1 ms', () => {
    const h = systemClock.setTimeout(() => expect.unreachable(), 1e13) as ReturnType<typeof setTimeout>;
    expect((h as unknown as { _idleTimeout: number })._idleTimeout).toBe(2 ** 31 - 1);
    systemClock.clearTimeout(h);
  });
});
