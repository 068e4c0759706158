/**
 * The part of Java's SimpleDateFormat that Connect's TimestampConverter and TimestampRouter need, in
 * UTC (both set the format's zone to UTC): patterns are written in Java's letters because users copy
 * them from working Connect configs. Letters for week-based fields (w, W, F, Y) are refused when the
 * pattern is compiled, so a pattern either works as in Java or is a ConfigError at start.
 */
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SUPPORTED = new Set('GyuMLdDEaHkKhmsSzZX');
const NUMERIC = new Set('yudDHkKhmsS');

type Token = { readonly literal: string } | { readonly letter: string; readonly count: number };

export class JavaDateFormat {
  readonly pattern: string;
  readonly #tokens: readonly Token[];
  /** Two-digit years land in the 100 years starting 80 years before the format was made, as in Java. */
  readonly #centuryStart: number;

  /** Throws an Error naming the problem when the pattern is malformed or uses an unsupported letter. */
  constructor(pattern: string, now = Date.now()) {
    this.pattern = pattern;
    this.#tokens = tokenize(pattern);
    this.#centuryStart = new Date(now).getUTCFullYear() - 80;
  }

  format(date: Date): string {
    let out = '';
    for (const token of this.#tokens) out += 'literal' in token ? token.literal : field(date, token);
    return out;
  }

  /** Milliseconds since the epoch; throws when the start of `text` does not match the pattern. */
  parse(text: string): number {
    let pos = 0;
    let year = 1970;
    let month = 0;
    let day = 1;
    let dayOfYear: number | undefined;
    let hour = 0;
    let pm: boolean | undefined;
    let minute = 0;
    let second = 0;
    let milli = 0;
    let offsetMinutes = 0;
    const fail = (): never => {
      throw new Error(`Unparseable date: ${JSON.stringify(text)} (pattern ${JSON.stringify(this.pattern)})`);
    };
    for (let i = 0; i < this.#tokens.length; i++) {
      const token = this.#tokens[i]!;
      if ('literal' in token) {
        if (!text.startsWith(token.literal, pos)) fail();
        pos += token.literal.length;
        continue;
      }
      const next = this.#tokens[i + 1];
      // adjacent numeric fields (yyyyMMdd) take exactly their width, as Java's parser does
      const fixed =
        next !== undefined &&
        'letter' in next &&
        (NUMERIC.has(next.letter) || ('ML'.includes(next.letter) && next.count <= 2));
      const number = (): number => {
        const sign = token.letter === 'y' || !/[+-]/.test(text[pos] ?? '') ? '' : text[pos]!;
        const start = pos + sign.length;
        let end = start;
        while (end < text.length && /\d/.test(text[end]!) && (!fixed || end - start < token.count)) end++;
        if (end === start) fail();
        pos = end;
        return Number(sign + text.slice(start, end));
      };
      const name = (names: readonly string[]): number => {
        const rest = text.slice(pos).toLowerCase();
        for (const full of [...names].sort((a, b) => b.length - a.length)) {
          for (const candidate of [full, full.slice(0, 3)]) {
            if (rest.startsWith(candidate.toLowerCase())) {
              pos += candidate.length;
              return names.indexOf(full);
            }
          }
        }
        return fail();
      };
      switch (token.letter) {
        case 'G':
          if (!/^(AD|BC)/i.test(text.slice(pos))) fail();
          pos += 2;
          break;
        case 'y': {
          const start = pos;
          year = number();
          if (token.count <= 2 && pos - start === 2) {
            const candidate = Math.floor(this.#centuryStart / 100) * 100 + year;
            year = candidate < this.#centuryStart ? candidate + 100 : candidate;
          }
          break;
        }
        case 'M':
        case 'L':
          month = token.count >= 3 ? name(MONTHS) : number() - 1;
          break;
        case 'd':
          day = number();
          break;
        case 'D':
          dayOfYear = number();
          break;
        case 'E':
          name(DAYS);
          break;
        case 'u':
          number();
          break;
        case 'a': {
          const ampm = text.slice(pos, pos + 2).toUpperCase();
          if (ampm !== 'AM' && ampm !== 'PM') fail();
          pm = ampm === 'PM';
          pos += 2;
          break;
        }
        case 'H':
          hour = number();
          break;
        case 'k':
          hour = number() % 24;
          break;
        case 'K':
          hour = number();
          break;
        case 'h':
          hour = number() % 12;
          break;
        case 'm':
          minute = number();
          break;
        case 's':
          second = number();
          break;
        case 'S':
          milli = number();
          break;
        case 'z':
        case 'Z':
        case 'X': {
          const zone = /^(?:Z|UTC|GMT)?(?:([+-])(\d{2}):?(\d{2})?)?/i.exec(text.slice(pos))!;
          if (zone[0] === '') fail();
          pos += zone[0].length;
          if (zone[1] !== undefined)
            offsetMinutes = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3] ?? 0));
          break;
        }
      }
    }
    if (pm === true) hour += 12;
    // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999, Java does not
    const date = new Date(0);
    if (dayOfYear === undefined) date.setUTCFullYear(year, month, day);
    else date.setUTCFullYear(year, 0, dayOfYear);
    date.setUTCHours(hour, minute, second, milli);
    return date.getTime() - offsetMinutes * 60_000;
  }
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        tokens.push({ literal: "'" });
        i += 2;
        continue;
      }
      const end = pattern.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in date pattern ${JSON.stringify(pattern)}`);
      let literal = pattern.slice(i + 1, end);
      let j = end;
      // '' inside a quoted run is one quote
      while (pattern[j + 1] === "'") {
        const close = pattern.indexOf("'", j + 2);
        if (close === -1) throw new Error(`unterminated quote in date pattern ${JSON.stringify(pattern)}`);
        literal += "'" + pattern.slice(j + 2, close);
        j = close;
      }
      tokens.push({ literal });
      i = j + 1;
      continue;
    }
    if (/[a-zA-Z]/.test(c)) {
      if (!SUPPORTED.has(c))
        throw new Error(
          `date pattern letter '${c}' is not supported (sharesink reads ${[...SUPPORTED].join('')} of Java's SimpleDateFormat letters)`,
        );
      let count = 1;
      while (pattern[i + count] === c) count++;
      tokens.push({ letter: c, count });
      i += count;
      continue;
    }
    tokens.push({ literal: c });
    i++;
  }
  return tokens;
}

const pad = (n: number, width: number): string => {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
};

function field(date: Date, token: { letter: string; count: number }): string {
  const { letter, count } = token;
  switch (letter) {
    case 'G':
      return date.getUTCFullYear() > 0 ? 'AD' : 'BC';
    case 'y': {
      const year = date.getUTCFullYear();
      return count === 2 ? pad(year % 100, 2) : pad(year, count);
    }
    case 'M':
    case 'L': {
      const month = date.getUTCMonth();
      if (count >= 4) return MONTHS[month]!;
      if (count === 3) return MONTHS[month]!.slice(0, 3);
      return pad(month + 1, count);
    }
    case 'd':
      return pad(date.getUTCDate(), count);
    case 'D': {
      const start = Date.UTC(date.getUTCFullYear(), 0, 1);
      return pad(Math.floor((date.getTime() - start) / 86_400_000) + 1, count);
    }
    case 'E': {
      const day = DAYS[date.getUTCDay()]!;
      return count >= 4 ? day : day.slice(0, 3);
    }
    case 'u':
      return pad(date.getUTCDay() === 0 ? 7 : date.getUTCDay(), count);
    case 'a':
      return date.getUTCHours() < 12 ? 'AM' : 'PM';
    case 'H':
      return pad(date.getUTCHours(), count);
    case 'k':
      return pad(date.getUTCHours() === 0 ? 24 : date.getUTCHours(), count);
    case 'K':
      return pad(date.getUTCHours() % 12, count);
    case 'h':
      return pad(date.getUTCHours() % 12 === 0 ? 12 : date.getUTCHours() % 12, count);
    case 'm':
      return pad(date.getUTCMinutes(), count);
    case 's':
      return pad(date.getUTCSeconds(), count);
    case 'S':
      return pad(date.getUTCMilliseconds(), count);
    case 'z':
      return count >= 4 ? 'Coordinated Universal Time' : 'UTC';
    case 'Z':
      return '+0000';
    default: // X: ISO 8601 zone, which is Z for UTC
      return 'Z';
  }
}
