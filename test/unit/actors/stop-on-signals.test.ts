import { describe, expect, it } from 'vitest';
import { stopOnSignals } from '../../../src/actors/stop-on-signals.js';

/** A worker stand-in that records the order of the steps. */
function fakeWorker(failures: readonly unknown[] = []) {
  const steps: string[] = [];
  return { steps, worker: { taskFailures: failures, stop: async () => void steps.push('stop') } };
}

const signal = (name: NodeJS.Signals) => process.emit(name as 'SIGTERM', name);

describe('stopOnSignals(worker, options)', () => {
  it('runs beforeStop, stop, afterStop, then onStopped(0), and removes its handlers', async () => {
    const { steps, worker } = fakeWorker();
    const stopped = new Promise<number>((resolve) => {
      const remove = stopOnSignals(worker, {
        beforeStop: async () => void steps.push('before'),
        afterStop: async () => void steps.push('after'),
        onStopped: (code) => {
          remove();
          resolve(code);
        },
      });
    });
    signal('SIGTERM');
    expect(await stopped).toBe(0);
    expect(steps).toEqual(['before', 'stop', 'after']);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('answers 1 when a task had failed, and 130 at once on a second signal', async () => {
    const { worker } = fakeWorker([{ connector: 'c', taskId: 0 }]);
    const codes: number[] = [];
    let remove = () => {};
    const first = new Promise<void>((resolve) => {
      remove = stopOnSignals(worker, {
        onStopped: (code) => {
          codes.push(code);
          if (codes.length === 2) resolve();
        },
      });
    });
    signal('SIGINT');
    signal('SIGINT');
    await first;
    remove();
    expect(codes).toEqual([130, 1]);
  });
});
