import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../../../src/kafka/kafkajs/request-queue.js';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  maybeThrottle(ms: number): void;
  scheduleCheckPendingRequests(): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
}
const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (
  o: object,
) => Queue;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const queue = () =>
  new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'c',
    broker: 'b',
    logger: silent,
  });

afterEach(() => vi.useRealTimers());

describe('kafkajs request queue (the idle timer loop, mended)', () => {
  it('arms no timer after an answer when no request waits (kafkajs 2.2.4 re-armed a 1 ms timer forever)', () => {
    vi.useFakeTimers();
    const q = queue();
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('still looks at waiting requests: at the end of a throttle, else after 10 ms', () => {
    vi.useFakeTimers();
    const q = queue();
    q.pending.push({});
    q.maybeThrottle(250);
    q.scheduleCheckPendingRequests();
    expect(vi.getTimerCount()).toBe(1);
    const check = vi
      .spyOn(q as unknown as { checkPendingRequests(): void }, 'checkPendingRequests')
      .mockImplementation(() => {});
    vi.advanceTimersByTime(249);
    expect(check).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(1);
    q.throttledUntil = -1;
    q.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(9);
    expect(check).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(2);
  });
});
