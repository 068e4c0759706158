import { describe, expect, it } from 'vitest';
import { BACKLOG_WAIT_MS, FetchPacing } from '../../../../src/kafka/share/fetch-pacing.js';

const idle = { longPollMs: 500, ackFlushDelayMs: 100, acksMayWait: false };
const holding = { ...idle, acksMayWait: true };

describe('FetchPacing', () => {
  it('long-polls when no acknowledgement can wait on the fetch, and caps the wait when one can', () => {
    const p = new FetchPacing();
    expect(p.waitMs(idle)).toBe(500);
    expect(p.waitMs(holding)).toBe(100);
    expect(p.waitMs({ ...holding, longPollMs: 50 })).toBe(50);
  });

  it('waits briefly after a full answer (a backlog is likely), until an answer comes back short', () => {
    const p = new FetchPacing();
    p.answered(500, 500);
    expect(p.waitMs(idle)).toBe(BACKLOG_WAIT_MS);
    p.answered(0, 500); // the broker at its in-flight limit: still a backlog
    expect(p.waitMs(holding)).toBe(BACKLOG_WAIT_MS);
    p.answered(120, 500);
    expect(p.waitMs(idle)).toBe(500);
  });

  it('counts the partition as caught up after three empty answers in a row', () => {
    const p = new FetchPacing();
    p.answered(592, 500);
    p.answered(0, 500);
    p.answered(0, 500);
    expect(p.waitMs(idle)).toBe(BACKLOG_WAIT_MS);
    p.answered(0, 500);
    expect(p.waitMs(idle)).toBe(500);
  });
});
