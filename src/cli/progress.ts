/**
 * A one-line live view of a running worker for interactive terminals (stderr, redrawn in place, log
 * lines scrolling above it through the same StatusLine). Non-interactive runs never get it.
 */
import type { Worker } from '../actors/worker.js';
import type { StatusLine } from './status-line.js';

export function formatProgress(worker: Worker): string {
  return worker
    .summary()
    .connectors.map((c) => {
      const k = c.counters;
      const locks = c.locks;
      const parts = [
        `${c.name} [${c.mode}]`,
        `acquired ${k.recordsAcquired ?? 0}`,
        `written ${k.recordsAccepted ?? 0}`,
        `rejected ${k.recordsRejected ?? 0}`,
        `released ${k.recordsReleased ?? 0}`,
        `redelivered ${k.recordsRedelivered ?? 0}`,
      ];
      if (locks) parts.push(`renewed ${locks.recordsRenewed ?? 0}`, `expired ${k.recordsLockExpired ?? 0}`);
      const failed = c.tasks.filter((t) => t.state === 'failed').length;
      if (failed > 0) parts.push(`FAILED tasks ${failed}`);
      return parts.join('  ');
    })
    .concat(`in flight ${worker.inFlight} batches`)
    .join(' | ');
}

/** Redraws the progress line every `intervalMs` until the returned function is called. */
export function showProgress(worker: Worker, line: StatusLine, intervalMs = 500): () => void {
  const draw = () => line.show(formatProgress(worker));
  const timer = setInterval(draw, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    draw();
    line.end();
  };
}
