import { describe, expect, it } from 'vitest';
import { FetchGate } from '../../../../../src/actors/task/share/fetch-gate.js';

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('FetchGate (share-mode pause)', () => {
  it('lets fetches through while open, holds them while paused, and lets them go on resume', async () => {
    const gate = new FetchGate();
    await expect(gate.whenOpen()).resolves.toBe(true);
    gate.pause();
    const waiting = gate.whenOpen();
    expect(await settled(waiting)).toBe(false);
    gate.resume();
    await expect(waiting).resolves.toBe(true);
  });

  it('release (the task stops) ends a paused wait with false, so the fetch loop can exit', async () => {
    const gate = new FetchGate();
    gate.pause();
    const waiting = gate.whenOpen();
    gate.release();
    await expect(waiting).resolves.toBe(false);
    expect(gate.isPaused).toBe(false);
  });
});
