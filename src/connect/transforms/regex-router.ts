/** Connect's RegexRouter: renames the topic when the whole name matches `regex`. */
import { ConfigDef } from '../config-def.js';
import type { SinkRecord } from '../sink-record.js';
import { problem } from './common-config.js';
import { regexProblem } from './java-regex.js';
import type { Transformation } from './transformation.js';

export const REGEX_ROUTER_DEF = new ConfigDef()
  .define({
    name: 'regex',
    type: 'string',
    validator: {
      check: (v) => (v === null ? undefined : regexProblem(v)),
      describe: () => 'a regular expression matched against whole topic names',
    },
    importance: 'high',
    documentation: 'Regular expression the whole topic name must match.',
  })
  .define({
    name: 'replacement',
    type: 'string',
    importance: 'high',
    documentation:
      "The new topic name, in Java's replacement syntax: `$1` and `${name}` insert groups, `\\$` is a literal dollar.",
  });

/** Literal text, or a group reference by number or name. */
export type ReplacementPart = { readonly text: string } | { readonly group: number | string };

/**
 * Java's Matcher replacement syntax as a list of literal text and group references, checked against
 * the pattern's groups now so a bad reference is a ConfigError, not an error on every record.
 */
export function compileJavaReplacement(
  replacement: string,
  groups: number,
  names: ReadonlySet<string>,
): ReplacementPart[] {
  const parts: ReplacementPart[] = [];
  let literal = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\') {
      if (i + 1 >= replacement.length) throw new Error('character to be escaped is missing');
      literal += replacement[++i];
    } else if (c === '$') {
      if (i + 1 >= replacement.length) throw new Error('illegal group reference: group index is missing');
      if (replacement[i + 1] === '{') {
        const end = replacement.indexOf('}', i + 2);
        if (end === -1) throw new Error("named capturing group is missing trailing '}'");
        const name = replacement.slice(i + 2, end);
        if (!names.has(name)) throw new Error(`no group with name {${name}}`);
        parts.push({ text: literal }, { group: name });
        literal = '';
        i = end;
        continue;
      }
      if (!/\d/.test(replacement[i + 1]!)) throw new Error('illegal group reference');
      // Java takes further digits only while the number still names a group
      let n = Number(replacement[++i]);
      if (n > groups) throw new Error(`no group ${n}`);
      while (
        i + 1 < replacement.length &&
        /\d/.test(replacement[i + 1]!) &&
        n * 10 + Number(replacement[i + 1]) <= groups
      )
        n = n * 10 + Number(replacement[++i]);
      parts.push({ text: literal }, { group: n });
      literal = '';
    } else literal += c;
  }
  parts.push({ text: literal });
  return parts.filter((p) => !('text' in p) || p.text !== '');
}

export class RegexRouter implements Transformation {
  #whole = /$^/;
  #first = /$^/;
  #parts: ReplacementPart[] = [];

  configure(props: Readonly<Record<string, string>>): void {
    const v = REGEX_ROUTER_DEF.parse(props);
    this.#whole = new RegExp(`^(?:${v.regex})$`);
    this.#first = new RegExp(v.regex);
    // matching the empty alternative reveals how many groups, and which names, the pattern has
    const probe = new RegExp(`${v.regex}|`).exec('')!;
    try {
      this.#parts = compileJavaReplacement(
        v.replacement,
        probe.length - 1,
        new Set(Object.keys(probe.groups ?? {})),
      );
    } catch (error) {
      throw problem(
        'replacement',
        `${JSON.stringify(v.replacement)}: ${(error as Error).message}`,
        'text with $n / ${name} group references and \\ escapes',
      );
    }
  }

  apply(record: SinkRecord): SinkRecord {
    // Java: matcher.matches() decides, then replaceFirst() rewrites the first match (usually all of it)
    if (!this.#whole.test(record.topic)) return record;
    const match = this.#first.exec(record.topic)!;
    let replaced = '';
    for (const part of this.#parts) {
      if ('text' in part) replaced += part.text;
      else
        replaced += (typeof part.group === 'number' ? match[part.group] : match.groups?.[part.group]) ?? '';
    }
    const topic =
      record.topic.slice(0, match.index) + replaced + record.topic.slice(match.index + match[0].length);
    return record.newRecord({ topic });
  }
}
