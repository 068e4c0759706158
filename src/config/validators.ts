import type { Validator } from '../connect/config-validators.js';
import { javaClassProblem, type PluginKind } from './java-classes.js';

/** Kafka's rule (org.apache.kafka.common.internals.Topic): legal characters and at most 249 of them. */
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

export function isTopicName(name: string): boolean {
  return TOPIC.test(name) && name !== '.' && name !== '..';
}

const TOPIC_RULE = "Kafka topic names (letters, digits, '.', '_', '-'; 1 to 249 characters)";

export function topicNames(): Validator<readonly string[] | null> {
  return {
    check: (names) => {
      const bad = names?.filter((name) => !isTopicName(name)) ?? [];
      return bad.length === 0
        ? undefined
        : `has invalid topic names ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
    },
    describe: () => TOPIC_RULE,
  };
}

/** An optional topic name: empty means "none", as in Connect's `errors.deadletterqueue.topic.name=`. */
export function optionalTopicName(): Validator<string | null> {
  return {
    check: (name) =>
      name === null || name === '' || isTopicName(name) ? undefined : 'is not a valid topic name',
    describe: () => `empty, or ${TOPIC_RULE.replace('names', 'name')}`,
  };
}

/** The broker's `errors.deadletterqueue.topic.name.prefix` default; it writes a group's DLQ only under it. */
export const SHARE_DLQ_PREFIX = 'dlq.';

export function shareDlqTopicName(): Validator<string | null> {
  return {
    check: (name) => {
      if (name === null || name === '') return undefined;
      if (!name.startsWith(SHARE_DLQ_PREFIX)) return `does not start with "${SHARE_DLQ_PREFIX}"`;
      return isTopicName(name) ? undefined : 'is not a valid topic name';
    },
    describe: () =>
      `empty, or a topic name starting with "${SHARE_DLQ_PREFIX}" (the broker writes a group's dead-letter queue only to topics with its errors.deadletterqueue.topic.name.prefix, "${SHARE_DLQ_PREFIX}" by default)`,
  };
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/;

export function hostPorts(): Validator<readonly string[] | null> {
  return {
    check: (entries) => {
      if (entries !== null && entries.length === 0) return 'is empty';
      const bad = (entries ?? []).filter((entry) => {
        const port = Number(HOST_PORT.exec(entry)?.[2] ?? NaN);
        return !(port >= 1 && port <= 65535);
      });
      return bad.length === 0
        ? undefined
        : `has entries that are not host:port: ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
    },
    describe: () => 'host:port pairs, at least one',
  };
}

/**
 * A name that can only be a Java class: dotted, or with capitals, and not a path. npm package names
 * are lowercase, so a capitalised bare name can never be imported; saying so now beats a failed
 * import at start-up.
 */
export function isJavaClassName(name: string): boolean {
  if (name.startsWith('.') || name.startsWith('/') || name.startsWith('file:') || name.includes('/'))
    return false;
  return /[A-Z]/.test(name) || name.startsWith('org.apache.kafka.');
}

/**
 * `connector.class` / `*.converter`: one of `builtins` (Connect's class names are aliases), or a
 * module specifier (a path, a `file:` URL, or an npm package name) whose default export is the class.
 */
export function classOrModule(kind: PluginKind, builtins: readonly string[]): Validator<string | null> {
  return {
    check: (name) => {
      if (name === null || builtins.includes(name)) return undefined;
      if (name === '') return 'is empty';
      return isJavaClassName(name) ? javaClassProblem(kind, name, builtins) : undefined;
    },
    describe: () =>
      `one of ${builtins.join(', ')}, or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the ${kind}`,
  };
}

// Java's Character.isISOControl range
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** No ISO control characters (Connect's rule for connector names). */
export function noControlCharacters(): Validator<string | null> {
  return {
    check: (v) => (v !== null && CONTROL.test(v) ? 'contains control characters' : undefined),
    describe: () => 'no control characters',
  };
}

/** `topics.regex`: compiled like Java's `Pattern.matcher(topic).matches()`, i.e. against the whole name. */
export function compileTopicsRegex(source: string): RegExp | string {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (error) {
    return (error as Error).message;
  }
}

export function validRegex(): Validator<string | null> {
  return {
    check: (v) => {
      if (v === null || v === '') return undefined;
      const compiled = compileTopicsRegex(v);
      return typeof compiled === 'string' ? `is not a valid regular expression (${compiled})` : undefined;
    },
    describe: () => 'a regular expression matched against whole topic names',
  };
}

/**
 * Java `Duration.parse` syntax (case-insensitive, like Java) without signs, after a case-sensitive
 * `by_duration:` as the broker wants it: `by_duration:P1D`, `by_duration:PT1H30M`, `by_duration:PT0.5S`.
 */
const DURATION = /^P(?=\d|T\d)(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:[.,]\d{1,9})?S)?)?$/i;
const BY_DURATION = 'by_duration:';

export function isShareAutoOffsetReset(value: string): boolean {
  if (value === 'earliest' || value === 'latest') return true;
  return value.startsWith(BY_DURATION) && DURATION.test(value.slice(BY_DURATION.length));
}

export function shareAutoOffsetReset(): Validator<string | null> {
  return {
    check: (v) =>
      v === null || isShareAutoOffsetReset(v) ? undefined : 'is not a share-group reset strategy',
    describe: () => 'earliest, latest or by_duration: and an ISO-8601 duration (e.g. by_duration:PT1H)',
  };
}

/** Node fires a longer timer at once, so delays that become timers stay below 2^31 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** `consumer` is KIP-848's classic-group successor; sharesink's classic mode reads it as classic. */
export const GROUP_PROTOCOL_VALUES: readonly string[] = ['share', 'classic', 'consumer'];

/** `share`, `consumer` (KIP-848) or `classic` (anything else the validator let through). */
export function toGroupProtocol(text: string): 'share' | 'classic' | 'consumer' {
  const t = text.toLowerCase();
  return t === 'share' ? 'share' : t === 'consumer' ? 'consumer' : 'classic';
}
