import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WakeTimer } from '../../../../src/kafka/share/wake-timer.js';

describe('WakeTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('wakes once at the deadline, keeps the armed one, and arms again after waking', () => {
    const wake = vi.fn();
    const t = new WakeTimer(wake);
    t.at(1_020, 1_000);
    t.at(1_010, 1_000); // already armed: the earlier call stands
    vi.advanceTimersByTime(19);
    expect(wake).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(wake).toHaveBeenCalledTimes(1);
    t.at(1_025, 1_020);
    vi.advanceTimersByTime(5);
    expect(wake).toHaveBeenCalledTimes(2);
  });

  it('does nothing for Infinity, wakes at once for a deadline passed, and cancels', () => {
    const wake = vi.fn();
    const t = new WakeTimer(wake);
    t.at(Infinity, 0);
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
