import { pino, type Logger } from 'pino';
import { CUSTOM_LEVELS } from '../../../src/logger.js';

export interface CapturedLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** A real pino logger whose lines land in an array, parsed; it knows sharesink's `notice` level (35). */
export function capturingLogger(level = 'debug'): { logger: Logger; lines: CapturedLine[] } {
  const lines: CapturedLine[] = [];
  const logger = pino(
    { level, customLevels: CUSTOM_LEVELS },
    { write: (s: string) => lines.push(JSON.parse(s) as CapturedLine) },
  );
  return { logger: logger as unknown as Logger, lines };
}
