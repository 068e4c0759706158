/** --profile: a --cpu-prof run of share mode (1 task, 100 B, the most partitions), summarized. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { round } from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import { summarizeProfiles } from '../profile.js';
import { noopSpec, type DrainTopic } from './drain.js';

export async function runProfile(ctx: BenchContext, drainTopics: readonly DrainTopic[]): Promise<void> {
  const { plan, results, brokers, measured } = ctx;
  await measured('profile (share mode, main thread, steady part)', async () => {
    const t = drainTopics.find((d) => d.recordSize === 100 && d.partitions === Math.max(...plan.partitions));
    if (!t) throw new Error('no 100 B topic to profile on (scenario 2 topics were not filled)');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-prof-'));
    try {
      const r = await runChild({ ...noopSpec(brokers, t, 'share', 1, 'profile-share-t1'), profileDir: dir });
      results.profile = {
        ...summarizeProfiles(dir, 25),
        run: `${r.label}: ${t.records} records of 100 B, ${t.partitions} partitions`,
        recordsPerSec: round(r.steadyRecordsPerSec ?? r.recordsPerSec),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
