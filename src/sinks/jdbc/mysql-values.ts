/** Values as mysql2 is given them, for the column they go to. */
import { toJson, type ColumnInfo } from '../postgres/rows.js';

/**
 * mysql2 formats `?` itself: a JS object would become `a = 1, b = 2` and an array a list, so both go
 * as JSON text. Connect's Date and Time are UTC; a timestamp goes in db.timezone, the session's zone.
 */
export function mysqlValue(value: unknown, column: ColumnInfo | undefined, timeZone: string): unknown {
  if (value === null || value === undefined) return null;
  const type = column?.type;
  if (value instanceof Date) {
    if (type === 'date') return value.toISOString().slice(0, 10);
    if (type === 'time') return value.toISOString().slice(11, 23);
    if (type === 'datetime' || type === 'timestamp') return localDateTime(value, timeZone);
    return value.toISOString();
  }
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return type !== undefined && /char|text|json/.test(type) ? bytes.toString('utf8') : bytes;
  }
  if (typeof value === 'bigint') return value.toString();
  // a prepared statement sends a number as a DOUBLE, which the server converts by its own rules: a
  // column of another type (DECIMAL, text) gets the number's text, as a text-protocol literal would
  if (typeof value === 'number' && type !== undefined && !BINARY_NUMBER_TYPES.has(type)) return String(value);
  if (typeof value === 'object') return toJson(value);
  return value;
}

/** Column types a DOUBLE parameter goes to unchanged (integers and floats; DECIMAL is exact, so not). */
const BINARY_NUMBER_TYPES = new Set([
  'tinyint',
  'smallint',
  'mediumint',
  'int',
  'integer',
  'bigint',
  'float',
  'double',
  'real',
  'year',
  'bit',
]);

const formats = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM:SS.mmm` in the zone. */
export function localDateTime(date: Date, timeZone: string): string {
  const iso = date.toISOString();
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, format);
  }
  const p = Object.fromEntries(format.formatToParts(date).map((x) => [x.type, x.value]));
  return `${p['year']}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}:${p['second']}${iso.slice(19, 23)}`;
}
