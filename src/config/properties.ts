import { ConfigError } from '../errors.js';

/**
 * Java's `.properties` format as `java.util.Properties.load` reads it, so a file written for Kafka
 * Connect means the same here: `#`/`!` comments, `=`/`:`/whitespace separators, `\` line
 * continuations, `\t \n \r \f \uXXXX` escapes, a backslash before any other character keeps that
 * character, leading whitespace dropped, trailing whitespace kept, the last duplicate key wins.
 * One departure: files are UTF-8 (Java's `load(InputStream)` reads ISO-8859-1); ASCII files and
 * `\uXXXX` escapes read the same either way.
 */
export function parseProperties(text: string): Record<string, string> {
  // a Map, then fromEntries: a key such as __proto__ must become a property, not a prototype
  const props = new Map<string, string>();
  const problems: string[] = [];
  for (const { line, number } of logicalLines(text)) {
    const { key, value } = splitKeyValue(line);
    try {
      props.set(unescape(key), unescape(value));
    } catch (error) {
      problems.push(`line ${number}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.fromEntries(props);
}

const WHITESPACE = new Set([' ', '\t', '\f']);

/** Line numbers of increasing offsets, counted once over the text. */
function lineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 1;
  return (offset) => {
    for (; at < offset; at++) {
      if (text[at] === '\n' || (text[at] === '\r' && text[at + 1] !== '\n')) line++;
    }
    return line;
  };
}

/**
 * A port of the JDK 17 `Properties.LineReader` state machine, end-of-file quirks included: a line is
 * a comment only while its logical line is still empty (so also after a lone `\`), comments never
 * continue, and a continuation whose line break ends the file still yields its (maybe empty) line.
 */
function* logicalLines(text: string): Generator<{ line: string; number: number }> {
  const limit = text.length;
  const lineAt = lineCounter(text);
  let off = 0;
  for (;;) {
    let line = '';
    let number = 0;
    let skipWhiteSpace = true;
    let appendedLineBegin = false;
    let precedingBackslash = false;
    for (;;) {
      if (off >= limit) {
        if (line !== '') yield { line: precedingBackslash ? line.slice(0, -1) : line, number };
        return;
      }
      const c = text[off++]!;
      if (skipWhiteSpace) {
        if (WHITESPACE.has(c)) continue;
        if (!appendedLineBegin && (c === '\r' || c === '\n')) continue;
        skipWhiteSpace = false;
        appendedLineBegin = false;
      }
      if (line === '' && (c === '#' || c === '!')) {
        while (off < limit) {
          const d = text[off++];
          if (d === '\r' || d === '\n') break;
        }
        skipWhiteSpace = true;
        continue;
      }
      if (c !== '\n' && c !== '\r') {
        if (line === '') number = lineAt(off - 1);
        line += c;
        precedingBackslash = c === '\\' ? !precedingBackslash : false;
        continue;
      }
      if (line === '') {
        skipWhiteSpace = true;
        continue;
      }
      if (off >= limit) {
        yield { line: precedingBackslash ? line.slice(0, -1) : line, number };
        return;
      }
      if (!precedingBackslash) break;
      line = line.slice(0, -1);
      skipWhiteSpace = true;
      appendedLineBegin = true;
      precedingBackslash = false;
      if (c === '\r' && text[off] === '\n') off++;
    }
    yield { line, number };
  }
}

/** The key ends at the first unescaped `=`, `:` or whitespace; one `=`/`:` may follow whitespace. */
function splitKeyValue(line: string): { key: string; value: string } {
  let keyEnd = 0;
  let valueStart = line.length;
  let hasSeparator = false;
  let escaped = false;
  for (; keyEnd < line.length; keyEnd++) {
    const c = line[keyEnd]!;
    if (!escaped && (c === '=' || c === ':')) {
      valueStart = keyEnd + 1;
      hasSeparator = true;
      break;
    }
    if (!escaped && WHITESPACE.has(c)) {
      valueStart = keyEnd + 1;
      break;
    }
    escaped = c === '\\' ? !escaped : false;
  }
  for (; valueStart < line.length; valueStart++) {
    const c = line[valueStart]!;
    if (WHITESPACE.has(c)) continue;
    if (!hasSeparator && (c === '=' || c === ':')) hasSeparator = true;
    else break;
  }
  return { key: line.slice(0, keyEnd), value: line.slice(valueStart) };
}

const ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' };
const HEX4 = /^[0-9a-fA-F]{4}$/;

function unescape(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++i];
    if (next === undefined) break;
    if (next === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (!HEX4.test(hex))
        throw new Error(`malformed escape \\u${hex}; accepted: \\u followed by 4 hexadecimal digits`);
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else {
      out += ESCAPES[next] ?? next;
    }
  }
  return out;
}

/** The inverse of parseProperties, escaping as Java's `Properties.store` does (non-ASCII as `\uXXXX`). */
export function formatProperties(props: Readonly<Record<string, string>>): string {
  const escape = (text: string, isKey: boolean): string =>
    text.replace(/[\\\t\n\r\f=:#! ]|[^\x20-\x7e]/g, (c, offset: number) => {
      if (c === '\\') return '\\\\';
      if (c === '\t') return '\\t';
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\f') return '\\f';
      if (c === ' ') return isKey || offset === 0 ? '\\ ' : ' ';
      if ('=:#!'.includes(c)) return `\\${c}`;
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    });
  return Object.entries(props)
    .map(([k, v]) => `${escape(k, true)}=${escape(v, false)}\n`)
    .join('');
}
