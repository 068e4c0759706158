import { describe, expect, it, vi } from 'vitest';
import { FetchGate, GatedShareConsumer } from '../../src/actors/fetch-gate.js';
import { ShareConsumer, type ShareRecord } from '../../src/kafka/share/share-consumer.js';

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

describe('GatedShareConsumer (share-mode pause)', () => {
  it('releases records a fetch under way brought back after the gate closed, and waits for resume', async () => {
    const batches: ShareRecord[][] = [[{ offset: 1 } as ShareRecord], [{ offset: 2 } as ShareRecord]];
    const consumer = new GatedShareConsumer({
      groupId: 'g',
      brokers: ['127.0.0.1:1'],
      clientId: 'c',
      transport: {} as never,
    } as ConstructorParameters<typeof GatedShareConsumer>[0]);
    const acks: Array<[unknown, string]> = [];
    vi.spyOn(ShareConsumer.prototype, 'poll').mockImplementation(async function (this: GatedShareConsumer) {
      // the operator pauses while the first ShareFetch waits on the broker
      if (batches.length === 2) this.gate.pause();
      return batches.shift() ?? [];
    });
    vi.spyOn(ShareConsumer.prototype, 'acknowledge').mockImplementation((target, type) => {
      acks.push([target, type]);
      return Promise.resolve([]);
    });
    const polled = consumer.poll();
    expect(await settled(polled)).toBe(false);
    expect(acks).toEqual([[[{ offset: 1 }], 'release']]);
    expect(consumer.releasedWhilePaused).toBe(1);
    consumer.gate.resume();
    await expect(polled).resolves.toEqual([{ offset: 2 }]);
    expect(acks).toHaveLength(1);
    vi.restoreAllMocks();
  });
});
