// The bench's reading of ShareConsumerPerformance output (bench/java-tools.ts), on lines the Kafka 4.4
// tool printed with --threads 2 --show-detailed-stats --reporting-interval 250 (middle lines cut).
import { describe, expect, it } from 'vitest';
import { csvStats, shareSteadyFromStats } from '../../bench/java-tools.js';

const OUTPUT = `start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms
2026-11-29 22:45:46:243, 2026-11-29 22:45:47:511, 0.0001, 0.0001, 0.7886, 1, 1268 for share consumer 1
2026-11-29 22:45:46:250, 2026-11-29 22:45:47:545, 0.0001, 0.0001, 0.7722, 1, 1295 for share consumer 2
2026-11-29 22:45:47:511, 2026-11-29 22:45:47:773, 0.8470, 3.2323, 33893.1298, 8881, 262 for share consumer 1
2026-11-29 22:45:47:545, 2026-11-29 22:45:47:803, 0.9599, 3.7201, 39007.7519, 10065, 258 for share consumer 2
2026-11-29 22:45:47:773, 2026-11-29 22:45:48:029, 1.7503, 3.5286, 37000.0000, 18353, 256 for share consumer 1
2026-11-29 22:45:47:803, 2026-11-29 22:45:48:057, 1.8067, 3.3341, 34960.6299, 18945, 254 for share consumer 2
2026-11-29 22:45:46:015, 2026-11-29 22:45:50:271, 47.6837, 11.2039, 117481.2030, 500000, 4256
`;

describe('ShareConsumerPerformance detailed stats', () => {
  it('the summary is the line without a consumer suffix', () => {
    const total = csvStats(OUTPUT);
    expect(total['data.consumed.in.nMsg']).toBe('500000');
    expect(total['fetch.time.ms']).toBe('4256');
  });

  it('steady rate: from the end of the first interval with a record, records counted after it', () => {
    const steady = shareSteadyFromStats(OUTPUT, csvStats(OUTPUT))!;
    // start 46:015; consumer 1's first record by 47:511 (1 record); consumer 2 has none by then
    expect(steady.firstRecordMs).toBe(1496);
    expect(steady.steadyRecordsPerSec).toBeCloseTo((500000 - 1) / 2.76, 0);
  });

  it('no interval lines (an old tool or no detailed stats): no steady rate', () => {
    const summaryOnly = OUTPUT.split('\n')
      .filter((l) => !l.includes('for share consumer'))
      .join('\n');
    expect(shareSteadyFromStats(summaryOnly, csvStats(summaryOnly))).toBeUndefined();
  });
});
