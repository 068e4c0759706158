/** Connect's built-in predicates: TopicNameMatches, HasHeaderKey, RecordIsTombstone. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyString } from '../config-validators.js';
import type { SinkRecord } from '../sink-record.js';
import { regexProblem } from './java-regex.js';
import type { Predicate } from './transformation.js';

export const TOPIC_NAME_MATCHES_DEF = new ConfigDef().define({
  name: 'pattern',
  type: 'string',
  validator: {
    check: (v) => {
      if (v === null) return undefined;
      if (v === '') return 'is empty';
      return regexProblem(v);
    },
    describe: () => 'a regular expression matched against whole topic names',
  },
  importance: 'medium',
  documentation: 'Regular expression the whole topic name must match for the predicate to be true.',
});

export const HAS_HEADER_KEY_DEF = new ConfigDef().define({
  name: 'name',
  type: 'string',
  validator: nonEmptyString(),
  importance: 'medium',
  documentation: 'The header name whose presence makes the predicate true.',
});

export const RECORD_IS_TOMBSTONE_DEF = new ConfigDef();

export class TopicNameMatches implements Predicate {
  #pattern = /$^/;

  configure(props: Readonly<Record<string, string>>): void {
    // Java's Matcher.matches(): the whole name, not a substring
    this.#pattern = new RegExp(`^(?:${TOPIC_NAME_MATCHES_DEF.parse(props).pattern})$`);
  }

  test(record: SinkRecord): boolean {
    return this.#pattern.test(record.topic);
  }
}

export class HasHeaderKey implements Predicate {
  #name = '';

  configure(props: Readonly<Record<string, string>>): void {
    this.#name = HAS_HEADER_KEY_DEF.parse(props).name;
  }

  test(record: SinkRecord): boolean {
    return record.headers.lastWithName(this.#name) !== undefined;
  }
}

export class RecordIsTombstone implements Predicate {
  configure(): void {}

  test(record: SinkRecord): boolean {
    return record.value === null || record.value === undefined;
  }
}
