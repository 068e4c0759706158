// The lines of failures sharesink retries itself while a broker is down (`share fetch failed; retrying`,
// `metadata refresh failed`): the first is logged, then one per 30 s per subject and cause with the
// count left out, and one NOTICE line when a failure that was logged ends.
import { describe, expect, it } from 'vitest';
import { RetryLines } from '../../../src/observability/retry-lines.js';
import { capturingLogger } from '../cli/capturing-logger.js';

function lines() {
  let now = 1_000;
  const { logger, lines: out } = capturingLogger('debug');
  const retry = new RetryLines(logger, () => now);
  return { retry, out, at: (ms: number) => (now = 1_000 + ms) };
}

describe('RetryLines', () => {
  it('a failure every 8 s for a minute: the first line, one per 30 s with repeatsLeftOut, then the end', () => {
    const { retry, out, at } = lines();
    for (let t = 0; t <= 60_000; t += 8_000) {
      at(t);
      retry.failed(1, 'connect ECONNREFUSED', { nodeId: 1 }, 'share fetch failed; retrying');
    }
    at(61_000);
    retry.recovered(1, { nodeId: 1 }, 'share fetch recovered');
    expect(out.map((l) => [l.level, l.msg, l['repeatsLeftOut'], l['failures'], l['failedForMs']])).toEqual([
      [40, 'share fetch failed; retrying', undefined, undefined, undefined],
      // at 32 s: the lines at 8, 16 and 24 s were left out
      [40, 'share fetch failed; retrying', 3, undefined, undefined],
      // the line at 64 s would be next; the lines at 40, 48 and 56 s were left out
      [35, 'share fetch recovered', undefined, 8, 61_000],
    ]);
  });

  it('keeps brokers and causes apart', () => {
    const { retry, out } = lines();
    retry.failed(1, 'connect ECONNREFUSED', {}, 'share fetch failed; retrying');
    retry.failed(2, 'connect ECONNREFUSED', {}, 'share fetch failed; retrying');
    retry.failed(1, 'Connection timeout', {}, 'share fetch failed; retrying');
    retry.failed(1, 'connect ECONNREFUSED', {}, 'share fetch failed; retrying');
    expect(out).toHaveLength(3);
  });

  it('a failure whose line was held back ends quietly; one that never failed says nothing', () => {
    const { retry, out, at } = lines();
    retry.failed('metadata', 'connect ECONNREFUSED', {}, 'metadata refresh failed');
    retry.recovered('metadata', {}, 'metadata refresh recovered');
    at(1_000);
    // within the window of the line above: held back, and so is its end
    retry.failed('metadata', 'connect ECONNREFUSED', {}, 'metadata refresh failed');
    retry.recovered('metadata', {}, 'metadata refresh recovered');
    retry.recovered(7, {}, 'share fetch recovered');
    expect(out.map((l) => l.msg)).toEqual(['metadata refresh failed', 'metadata refresh recovered']);
  });
});
