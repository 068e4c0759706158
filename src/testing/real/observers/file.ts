/** FileStreamSink's observer: the lines of its `file`. */
import { readFileSync } from 'node:fs';
import { KitUsageError } from '../../usage.js';
import type { ObservedRun } from './types.js';

export function fileObserver(run: ObservedRun): string {
  const file = run.connector['file'];
  if (file === undefined || file === '')
    throw new KitUsageError(
      'sharesink check: a FileStreamSink checked must write to a file (set file=…), not stdout',
    );
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}
