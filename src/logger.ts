import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The logger used when the embedder passes none: JSON to stderr. Level: SHARESINK_LOG_LEVEL, which
 * like the command's --log-level wins over the config's `level` (the worker's `log.level`), else info.
 */
export function defaultLogger(level?: string): Logger {
  return pino(
    { name: 'sharesink', level: process.env.SHARESINK_LOG_LEVEL ?? level ?? 'info' },
    pino.destination(2),
  );
}
