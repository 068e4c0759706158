/**
 * Carrying out a classic batch's disposition. A consumer group has no per-record acknowledgement: the
 * commit of the chunk's last offset is the acknowledgement, and a batch left uncommitted is fetched
 * again (from the last resolved offset, by this member or the partition's next owner).
 */
import type { RawRecord } from '../../../connect/raw-record.js';
import type { AckDisposition, BatchOutput } from '../../../machines/batch.js';
import type { CoreBatch } from '../core/task-runner-core.js';
import { TaskFailedError } from '../../errors/task-failed.js';
import { failureMessage } from '../../errors/tolerance.js';
import type { ClassicCommits, CommitChunk } from './commits.js';
import type { ClassicDeadLetters } from './dead-letters.js';

/** One chunk of a kafkajs fetch, put and settled as one batch. */
export interface ClassicBatch extends CoreBatch, CommitChunk {
  records: readonly RawRecord[];
  readonly heartbeat: NodeJS.Timeout;
  readonly settled: (output: BatchOutput | undefined) => void;
}

export interface ClassicSettlement {
  readonly commits: ClassicCommits;
  readonly deadLetters: ClassicDeadLetters;
  readonly tolerance: 'none' | 'all';
}

/**
 * Commit, dead-letter then commit, or leave for refetch: true when settled that way, false when the
 * batch is left uncommitted (its records are read again, or its commit was given up at the end of a
 * stop); a TaskFailedError when the task must fail (a rejected batch under errors.tolerance=none).
 */
export async function settleClassicBatch(
  s: ClassicSettlement,
  work: ClassicBatch,
  d: AckDisposition,
): Promise<boolean | TaskFailedError> {
  switch (d.kind) {
    case 'release':
      return true; // unresolved: fetched again
    case 'accept':
      return s.commits.chunk(work);
    case 'partial':
      if (!(await s.deadLetters.write(work, d.rejectedIndexes))) return false;
      return s.commits.chunk(work);
    case 'reject': {
      if (s.tolerance === 'none') {
        const why = failureMessage(work.lastPut, work.reasons);
        return new TaskFailedError(`${why} (errors.tolerance=none; offsets not committed)`);
      }
      const all = work.records.map((_, i) => i);
      if (!(await s.deadLetters.write(work, all))) return false;
      return s.commits.chunk(work);
    }
  }
}
