import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WakeTimer } from '../../../../src/kafka/share/wake-timer.js';

describe('WakeTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('wakes once at the earliest deadline it was given, and arms again after waking', () => {
    const wake = vi.fn();
    const t = new WakeTimer(wake);
    t.at(1_020, 1_000);
    t.at(1_030, 1_000); // later than the armed one: it stands
    vi.advanceTimersByTime(19);
    expect(wake).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(wake).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(wake).toHaveBeenCalledTimes(1);
    t.at(1_025, 1_020);
    vi.advanceTimersByTime(5);
    expect(wake).toHaveBeenCalledTimes(2);
  });

  it('moves an armed wake-up earlier when given an earlier deadline (a session freed with older acks)', () => {
    const wake = vi.fn();
    const t = new WakeTimer(wake);
    t.at(25, 5);
    t.at(21, 10);
    vi.advanceTimersByTime(11);
    expect(wake).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(wake).toHaveBeenCalledTimes(1);
  });

  it('does nothing for Infinity or NaN, wakes at once for a deadline passed, and cancels', () => {
    const wake = vi.fn();
    const t = new WakeTimer(wake);
    t.at(Infinity, 0);
    t.at(NaN, 0);
    vi.advanceTimersByTime(1_000);
    expect(wake).not.toHaveBeenCalled();
    t.at(5, 10);
    vi.advanceTimersByTime(0);
    expect(wake).toHaveBeenCalledTimes(1);
    t.at(100, 0);
    t.cancel();
    vi.advanceTimersByTime(200);
    expect(wake).toHaveBeenCalledTimes(1);
  });
});
