/**
 * `sasl.jaas.config` as Java users write it:
 *
 * ```
 * org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cr\"t";
 * ```
 *
 * One login module class, a control flag, `key=value` options (values quoted with `"`, backslash
 * escapes as Java's StreamTokenizer reads them, or a bare word), and a terminating `;`. Kafka's client
 * takes exactly one login module; so does this. Messages never repeat an option's value: the text
 * carries passwords.
 */

export interface JaasEntry {
  /** The login module class, e.g. `org.apache.kafka.common.security.plain.PlainLoginModule`. */
  readonly loginModule: string;
  /** `required`, `requisite`, `sufficient` or `optional` (lower case). */
  readonly flag: string;
  readonly options: Readonly<Record<string, string>>;
}

export const JAAS_FLAGS = ['required', 'requisite', 'sufficient', 'optional'] as const;

export const JAAS_FORM =
  '<LoginModule class> required key="value" …; e.g. org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="…";';

/** A JAAS text that cannot be read; `message` says where, never what the options hold. */
export class JaasSyntaxError extends Error {}

type Token = { kind: 'word'; text: string } | { kind: 'quoted'; text: string } | { kind: ';' | '=' };

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === ';' || c === '=') {
      tokens.push({ kind: c });
      i++;
    } else if (c === '"' || c === "'") {
      // Java's StreamTokenizer treats both as quote characters; a string ends at its own quote
      let out = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new JaasSyntaxError(`a quoted value is not closed (missing ${c})`);
        const d = text[i]!;
        if (d === c) break;
        if (d === '\\' && i + 1 < text.length) {
          const e = text[i + 1]!;
          out += ESCAPES[e] ?? e;
          i += 2;
          continue;
        }
        out += d;
        i++;
      }
      tokens.push({ kind: 'quoted', text: out });
      i++;
    } else {
      const start = i;
      while (i < text.length && !/[\s;="']/.test(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i) });
    }
  }
  return tokens;
}

/** Parses one JAAS entry. @throws JaasSyntaxError */
export function parseJaasConfig(text: string): JaasEntry {
  const tokens = tokenize(text);
  const first = tokens[0];
  if (first === undefined) throw new JaasSyntaxError('is empty');
  if (first.kind !== 'word') throw new JaasSyntaxError('does not start with a login module class');
  const loginModule = first.text;
  const flagToken = tokens[1];
  const flag = flagToken?.kind === 'word' ? flagToken.text.toLowerCase() : undefined;
  if (flag === undefined || !(JAAS_FLAGS as readonly string[]).includes(flag))
    throw new JaasSyntaxError(
      `has no control flag after ${loginModule} (write \`required\` between the class and the options)`,
    );
  const options: Record<string, string> = {};
  let i = 2;
  for (;;) {
    const t = tokens[i];
    if (t === undefined)
      throw new JaasSyntaxError(`does not end with ";" after the options of ${loginModule}`);
    if (t.kind === ';') break;
    if (t.kind !== 'word') throw new JaasSyntaxError(`has a value where an option name was expected`);
    const name = t.text;
    if (tokens[i + 1]?.kind !== '=') throw new JaasSyntaxError(`option ${name} has no "=value"`);
    const value = tokens[i + 2];
    if (value === undefined || (value.kind !== 'word' && value.kind !== 'quoted'))
      throw new JaasSyntaxError(`option ${name} has no value after "="`);
    options[name] = value.text;
    i += 3;
  }
  if (i + 1 < tokens.length)
    throw new JaasSyntaxError(
      'has more than one login module; a Kafka client takes exactly one (end the text after the first ";")',
    );
  return { loginModule, flag, options };
}
