import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * A level between info and warn for what a person at a terminal should read once — where a new share
 * group starts, Connect settings that have no effect here — without the info chatter of every task
 * and batch. A terminal shows it by default; JSON lines carry it as level 35.
 */
export const CUSTOM_LEVELS = { notice: 35 } as const;

/** Logs at `notice` where the logger knows the level (sharesink's own loggers), else at info. */
export function notice(log: Logger, obj: object, msg: string): void {
  const withNotice = log as Logger & { notice?: (obj: object, msg: string) => void };
  if (typeof withNotice.notice === 'function') withNotice.notice(obj, msg);
  else log.info(obj, msg);
}

/**
 * The logger used when the embedder passes none: JSON to stderr. Level: SHARESINK_LOG_LEVEL, which
 * like the command's --log-level wins over the config's `level` (the worker's `log.level`), else info.
 */
export function defaultLogger(level?: string): Logger {
  return pino(
    {
      name: 'sharesink',
      level: process.env.SHARESINK_LOG_LEVEL ?? level ?? 'info',
      customLevels: CUSTOM_LEVELS,
    },
    pino.destination(2),
  ) as unknown as Logger;
}
