/**
 * The message part of a readable log line (pino-pretty writes the time and level before it):
 * `[connector/task] message  key=value …`. Bindings that repeat on every line of a task (group and
 * member ids, client ids, kafkajs namespaces) are left out; they stay in the JSON form.
 */

/** Keys never shown as fields: printed elsewhere on the line, or the same on every line of a task. */
const HIDDEN = new Set([
  'level',
  'time',
  'msg',
  'pid',
  'hostname',
  'name',
  'connector',
  'task',
  'component',
  'groupId',
  'memberId',
  'clientId',
  'nodeId',
  'kafkajs',
  'stack',
]);
/** pino's error keys; the message is shown, the stack only when `stacks` is on. */
const ERROR_KEYS = new Set(['err', 'error']);
const MAX_VALUE = 300;
/** An error's message is what a person acts on (it often ends on the fix): cut far later than other values. */
const MAX_ERROR = 2000;

export interface LogLineOptions {
  /** Error stacks on the lines below (the CLI turns this on at debug and trace). */
  readonly stacks: boolean;
}

export function formatLogMessage(log: Readonly<Record<string, unknown>>, options: LogLineOptions): string {
  const parts: string[] = [];
  const scope = scopeOf(log);
  if (scope !== undefined) parts.push(`[${scope}]`);
  if (log.msg !== undefined) parts.push(oneLine(String(log.msg)));
  const fields: string[] = [];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(log)) {
    if (HIDDEN.has(key) || value === undefined) continue;
    if (ERROR_KEYS.has(key) && isErrorLike(value)) {
      fields.push(`${key}=${quote(value.message, MAX_ERROR)}`);
      if (options.stacks && typeof value.stack === 'string') stacks.push(value.stack);
      continue;
    }
    const errorText = ERROR_KEYS.has(key) && typeof value === 'string';
    fields.push(`${key}=${errorText ? quote(value, MAX_ERROR) : render(value)}`);
  }
  // kafkajs puts the stack of the error it logs beside its fields rather than in an error object
  if (options.stacks && typeof log.stack === 'string') stacks.push(log.stack);
  let line = parts.join(' ');
  if (fields.length > 0) line += `  ${fields.join(' ')}`;
  for (const stack of stacks) line += `\n${indent(stack)}`;
  return line;
}

function scopeOf(log: Readonly<Record<string, unknown>>): string | undefined {
  if (log.connector !== undefined)
    return log.task !== undefined ? `${String(log.connector)}/${String(log.task)}` : String(log.connector);
  return log.component !== undefined ? String(log.component) : undefined;
}

function isErrorLike(value: unknown): value is { message: string; stack?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

function render(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  // timings are measured in fractional ms; two decimals are all a reader wants
  if (typeof value === 'number') return String(Number.isInteger(value) ? value : Number(value.toFixed(2)));
  if (typeof value === 'boolean' || value === null) return String(value);
  return cut(oneLine(JSON.stringify(value) ?? String(value)));
}

/** Bare when it reads unambiguously as one token, JSON-quoted otherwise. */
function quote(text: string, max = MAX_VALUE): string {
  const flat = cut(oneLine(text), max);
  return /^[^\s"=]+$/.test(flat) ? flat : JSON.stringify(flat);
}

/** Control characters (a newline in a broker message, an escape sequence) would break the line. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

function cut(text: string, max = MAX_VALUE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function indent(stack: string): string {
  return stack
    .split('\n')
    .map((l) => `    ${l.trim()}`)
    .join('\n');
}
