/**
 * The Single Message Transform contract (Connect's Transformation and Predicate), in JS terms. A
 * transform runs in the worker thread between the converters and `put()`, once per record, in the
 * order of the connector's `transforms` list.
 */
import type { ConfigDef } from '../config-def.js';
import type { SinkRecord } from '../sink-record.js';

export interface Transformation {
  /**
   * The transform's settings: every `transforms.<alias>.<setting>` key with the prefix removed
   * (`type`, `predicate` and `negate` left out). Throw a ConfigError to refuse them.
   */
  configure(props: Readonly<Record<string, string>>): void;
  /**
   * The transformed record (build it with `record.newRecord(...)` so it still acknowledges as the
   * original), the same record, or null to drop it: a dropped record is not put, and counts as
   * done (accepted in share mode, committed in classic mode). Throwing makes the record errant,
   * exactly like a converter failure (see `errors.tolerance`).
   */
  apply(record: SinkRecord): SinkRecord | null;
  /** The settings the transform takes; when given, they are validated before `configure()`. */
  config?(): ConfigDef<Record<string, unknown>>;
  /** Called once when the task's instance stops. */
  close?(): void;
}

export interface Predicate {
  /** The predicate's settings: `predicates.<alias>.<setting>` with the prefix removed (`type` left out). */
  configure(props: Readonly<Record<string, string>>): void;
  /** True when the transform it guards should run (inverted by `transforms.<alias>.negate=true`). */
  test(record: SinkRecord): boolean;
  config?(): ConfigDef<Record<string, unknown>>;
  close?(): void;
}

/**
 * What a custom transform or predicate module exports as its default export: the class. sharesink
 * creates one instance per task instance (so per worker thread a task runs on).
 *
 * ```ts
 * export default class UpperCaseValue implements Transformation { ... }
 * ```
 */
export type TransformationClass = new () => Transformation;
export type PredicateClass = new () => Predicate;
