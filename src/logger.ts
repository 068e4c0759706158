import { pino, type Logger } from 'pino';

export type { Logger };

/** The logger used when the embedder passes none: JSON to stderr, level from SHARESINK_LOG_LEVEL. */
export function defaultLogger(): Logger {
  return pino({ name: 'sharesink', level: process.env.SHARESINK_LOG_LEVEL ?? 'info' }, pino.destination(2));
}
