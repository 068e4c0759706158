import { describe, expect, it } from 'vitest';
import { StillWaiting } from '../../../src/observability/still-waiting.js';
import { capturingLogger } from '../cli/capturing-logger.js';

function waiter(warnAfterMs = 10_000) {
  let now = 0;
  const { logger, lines } = capturingLogger('debug');
  const w = new StillWaiting({
    logger,
    what: 'the share group coordinator of group g',
    warnAfterMs,
    now: () => now,
  });
  return { w, lines, advance: (ms: number) => (now += ms) };
}

describe('StillWaiting: retriable conditions are debug, one WARN when one lasts', () => {
  it('a wait that clears within the threshold logs only debug lines', () => {
    const { w, lines, advance } = waiter();
    for (let t = 0; t < 9_000; t += 1000) {
      w.failed('COORDINATOR_LOAD_IN_PROGRESS');
      advance(1000);
    }
    w.succeeded();
    expect(lines.map((l) => l.level)).toEqual(Array(9).fill(20));
    expect(lines[0]!.msg).toBe(
      'waiting for the share group coordinator of group g: COORDINATOR_LOAD_IN_PROGRESS',
    );
  });

  it('warns exactly once, naming what it waits for, once the wait passes 10 s; says when it ends', () => {
    const { w, lines, advance } = waiter();
    for (let t = 0; t <= 30_000; t += 2500) {
      w.failed('COORDINATOR_LOAD_IN_PROGRESS', { retryInMs: 2500 });
      advance(2500);
    }
    w.succeeded();
    const loud = lines.filter((l) => l.level >= 30);
    expect(loud).toHaveLength(2);
    expect(loud[0]).toMatchObject({
      level: 40,
      msg: 'still waiting for the share group coordinator of group g after 10 s: COORDINATOR_LOAD_IN_PROGRESS',
      retryInMs: 2500,
      waitedMs: 10_000,
    });
    expect(loud[1]).toMatchObject({
      level: 30,
      msg: 'the share group coordinator of group g answered after 33 s',
    });
  });

  it('a new wait after a success may warn again; a quiet success says nothing', () => {
    const { w, lines, advance } = waiter(1000);
    w.failed('NOT_COORDINATOR');
    advance(1500);
    w.failed('NOT_COORDINATOR');
    w.succeeded();
    w.failed('COORDINATOR_NOT_AVAILABLE');
    advance(1000);
    w.failed('COORDINATOR_NOT_AVAILABLE');
    advance(10);
    w.succeeded();
    w.failed('NOT_COORDINATOR');
    w.succeeded();
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'still waiting for the share group coordinator of group g after 2 s: NOT_COORDINATOR',
      'still waiting for the share group coordinator of group g after 1 s: COORDINATOR_NOT_AVAILABLE',
    ]);
    expect(lines.filter((l) => l.level === 30)).toHaveLength(2);
  });

  it('begin() counts the wait from the call, for a first attempt that itself takes long', () => {
    const { w, lines, advance } = waiter();
    w.begin();
    advance(10_000); // a connection timeout
    w.failed('ECONNREFUSED');
    expect(lines).toMatchObject([{ level: 40, msg: expect.stringContaining('after 10 s: ECONNREFUSED') }]);
  });
});
