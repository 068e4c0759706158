/**
 * The command's logger: readable lines on a terminal (pino-pretty, in this thread, so a line logged
 * just before process.exit is still printed), JSON lines for pipes, files and log collectors.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { CUSTOM_LEVELS } from '../logger.js';
import { formatLogMessage } from './log-line.js';
import type { StatusLine } from './status-line.js';

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface CliLoggerOptions {
  readonly level: string;
  readonly format: LogFormat;
  /** Where logs go: the command's stderr. */
  readonly stderr: { readonly isTTY?: boolean | undefined; write(text: string): boolean };
  /** The progress line, if one is shown: log lines are printed above it rather than through it. */
  readonly statusLine?: StatusLine | undefined;
  /** Colours on a terminal unless NO_COLOR is set (https://no-color.org). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * `--log-level` first, then the worker's `log.level`; otherwise a terminal, which also shows the
 * progress line, gets notices (a few lines a person should read once), warnings and errors, and
 * anything else gets info.
 */
export function chooseLogLevel(
  flag: string | undefined,
  config: string | undefined,
  interactive: boolean,
): string {
  return flag ?? config ?? (interactive ? 'notice' : 'info');
}

export function chooseLogFormat(format: LogFormat, stderrIsTTY: boolean): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stderrIsTTY ? 'pretty' : 'json';
}

export function createCliLogger(options: CliLoggerOptions): Logger {
  const base = { name: 'sharesink', level: options.level, customLevels: CUSTOM_LEVELS };
  const isTTY = options.stderr.isTTY === true;
  const out = lineWriter(options);
  // the notice level is reached through notice() (src/logger.ts): the plain Logger type is enough here
  if (chooseLogFormat(options.format, isTTY) === 'json')
    return pino(base, out ?? pino.destination(2)) as unknown as Logger;
  const stacks = (pino.levels.values[options.level] ?? CUSTOM_LEVELS.notice) <= pino.levels.values.debug!;
  const env = options.env ?? process.env;
  return pino(
    base,
    pretty({
      sync: true,
      destination: out ?? 2,
      colorize: isTTY && !env.NO_COLOR,
      customLevels: 'notice:35',
      customColors: 'notice:cyan',
      translateTime: 'SYS:HH:MM:ss',
      customPrettifiers: { time: (t) => String(t) },
      ignore: 'pid,hostname,name',
      hideObject: true,
      messageFormat: (log) => formatLogMessage(log, { stacks }),
    }),
  ) as unknown as Logger;
}

/** A stream into the status line or a test's stderr; undefined means fd 2 directly (the fast path). */
function lineWriter(options: CliLoggerOptions): Writable | undefined {
  const { statusLine, stderr } = options;
  if (statusLine === undefined && stderr === process.stderr) return undefined;
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (statusLine !== undefined) statusLine.printAbove(text);
      else stderr.write(text);
      done();
    },
  });
}
