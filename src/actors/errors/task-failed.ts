/** A task that stopped for good: its code says so, its message says why and what settled the batch. */
import { SharesinkError } from '../../errors.js';

export class TaskFailedError extends SharesinkError {
  constructor(why: string, options: { cause?: unknown } = {}) {
    super('SHARESINK_TASK_FAILED', `task failed: ${why}`, options);
  }
}
