import { pino, type Logger } from 'pino';

export interface CapturedLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** A real pino logger whose lines land in an array, parsed. */
export function capturingLogger(level = 'debug'): { logger: Logger; lines: CapturedLine[] } {
  const lines: CapturedLine[] = [];
  const logger = pino({ level }, { write: (s: string) => lines.push(JSON.parse(s) as CapturedLine) });
  return { logger, lines };
}
