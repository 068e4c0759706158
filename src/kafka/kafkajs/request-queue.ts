/**
 * A fix to kafkajs 2.2.4's request queue, applied to the process's (or worker thread's) kafkajs when
 * this module loads. Every module that opens kafkajs connections imports it; it is the one other place
 * besides kafkajs.ts that touches kafkajs internals, checked against 2.2.4 only.
 *
 * After every answer a kafkajs connection re-arms a check of its queue of waiting requests, whether any
 * request waits or not, with a delay that is negative unless the broker throttles the client; Node runs
 * a negative delay after 1 ms. So every connection that has had one answer wakes its thread once a
 * millisecond for good (kafkajs issues 1556, 1604 and 1704; no release fixes it). On a 2-core VM a
 * wake-up costs ~100 µs of CPU: that loop alone was a tenth of a core, the largest single cost of a
 * share task at a steady, moderate rate (ADR 0011).
 *
 * Requests only wait in that queue while the connection is throttled or at its in-flight limit, and
 * each answer checks the queue anyway. So the check is armed only while a request waits: for the end of
 * the throttle, or else after kafkajs's own 10 ms interval.
 */
import { createRequire } from 'node:module';

interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: how soon a waiting request is looked at again. */
const RECHECK_MS = 10;

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as {
  prototype: KafkajsRequestQueue;
};

if (typeof RequestQueue.prototype.scheduleCheckPendingRequests !== 'function')
  throw new Error('kafkajs is not 2.2.4: its RequestQueue has no scheduleCheckPendingRequests');

RequestQueue.prototype.scheduleCheckPendingRequests = function (this: KafkajsRequestQueue): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : RECHECK_MS,
  );
};
