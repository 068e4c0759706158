/**
 * Graceful shutdown on SIGTERM / SIGINT for a worker (standalone or distributed), as `sharesink`'s
 * commands and an embedding service use it.
 */
import type { Logger } from 'pino';

/** What {@link stopOnSignals} does around `worker.stop()`. */
export interface StopOnSignalsOptions {
  /** Receives the exit code: 0, or 1 when a task had failed; 130 on a second signal. It decides to exit. */
  readonly onStopped: (code: number) => void;
  /** Where the signal, the shutdown and a failed step are logged. */
  readonly logger?: Logger | undefined;
  /** Runs first, e.g. closing HTTP endpoints so nothing restarts or resumes a connector while it drains. */
  readonly beforeStop?: (() => Promise<void>) | undefined;
  /** Runs once the worker stopped. */
  readonly afterStop?: (() => Promise<void>) | undefined;
}

/**
 * Stops a worker (standalone or distributed) on SIGTERM / SIGINT (a second signal exits at once).
 * Returns a function that removes the handlers. `onStopped` receives the exit code: 0, or 1 when a task
 * is failed at the stop (one restarted successfully since no longer counts). Standalone's `beforeStop`
 * closes the REST server, so nothing restarts a task while the worker drains; distributed's `afterStop`
 * closes REST last (the others forward to it until it has left the group). A failed step is logged and
 * holds nothing up.
 */
export function stopOnSignals(
  worker: { stop(): Promise<void>; readonly taskFailures: readonly unknown[] },
  { onStopped, logger, beforeStop, afterStop }: StopOnSignalsOptions,
): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received++;
    if (received > 1) {
      logger?.warn({ signal }, 'second signal: exiting without waiting');
      onStopped(130);
      return;
    }
    logger?.info({ signal }, 'shutting down gracefully (send the signal again to exit at once)');
    const before = (beforeStop?.() ?? Promise.resolve()).catch((err: Error) =>
      logger?.warn({ err }, 'before-stop step failed'),
    );
    void before
      .then(() => worker.stop())
      .then(() => afterStop?.().catch((err: Error) => logger?.warn({ err }, 'after-stop step failed')))
      .then(
        () => onStopped(worker.taskFailures.length > 0 ? 1 : 0),
        (err: Error) => {
          logger?.error({ err }, 'shutdown failed');
          onStopped(1);
        },
      );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
