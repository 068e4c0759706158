/**
 * A task's transform chain, built in the worker thread from the compiled specs and applied to a whole
 * converted batch in one plain loop: no per-record promise, log line or thread hop.
 */
import { ConfigError } from '../../errors.js';
import type { ConfigDef } from '../config-def.js';
import { BATCH_INDEX, type SinkRecord } from '../sink-record.js';
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from './builtins.js';
import { TransformError, TransformModuleError } from './errors.js';
import type { PluginSpec, TransformsConfig } from './spec.js';
import type { Predicate, Transformation } from './transformation.js';

interface Stage {
  readonly alias: string;
  readonly type: string;
  readonly transform: Transformation;
  readonly predicate: Predicate | undefined;
  readonly negate: boolean;
}

export interface ChainResult {
  /** What `put()` receives, in input order; each keeps the batch index of the record it came from. */
  readonly records: SinkRecord[];
  /** Records a transform dropped (returned null): not put, and done all the same. */
  readonly dropped: number;
  /** Records a transform or predicate threw on; `index` is the batch index. */
  readonly failures: { readonly index: number; readonly error: TransformError }[];
}

type Import = (specifier: string) => Promise<unknown>;

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === 'function';

/** Prefixes each problem of a plugin's ConfigError with its key prefix, so it names the full key. */
function prefixed(error: unknown, prefix: string): unknown {
  if (!(error instanceof ConfigError)) return error;
  return new ConfigError(error.problems.map((p) => prefix + p));
}

async function instantiate<T>(
  spec: PluginSpec,
  kind: 'transform' | 'predicate',
  method: 'apply' | 'test',
  importModule: Import,
): Promise<T> {
  if (spec.builtin !== undefined) {
    const builtin =
      kind === 'transform' ? BUILTIN_TRANSFORMS.get(spec.builtin) : BUILTIN_PREDICATES.get(spec.builtin);
    if (builtin === undefined) throw new TransformModuleError(`${spec.builtin} is not a built-in ${kind}`);
    return builtin.create() as T;
  }
  const specifier = spec.module!;
  let ns: { default?: unknown };
  try {
    ns = (await importModule(specifier)) as { default?: unknown };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new TransformModuleError(`Cannot import ${kind} module ${specifier} (${spec.alias}): ${reason}`, {
      cause,
    });
  }
  const shape = `a default export that is a class with configure() and ${method}()`;
  if (!isFunction(ns.default))
    throw new TransformModuleError(`${kind} module ${specifier} (${spec.alias}) must have ${shape}`);
  const instance = new (ns.default as unknown as new () => Record<string, unknown>)();
  if (!isFunction(instance['configure']) || !isFunction(instance[method]))
    throw new TransformModuleError(`${kind} module ${specifier} (${spec.alias}) must have ${shape}`);
  return instance as T;
}

function configure(plugin: Transformation | Predicate, spec: PluginSpec, prefix: string): void {
  try {
    const def = plugin.config?.() as ConfigDef<Record<string, unknown>> | undefined;
    if (def !== undefined) {
      const problems = [...def.validate(spec.props).values()].flat();
      if (problems.length > 0) throw new ConfigError(problems);
    }
    plugin.configure(spec.props);
  } catch (error) {
    throw prefixed(error, prefix);
  }
}

export class TransformChain {
  static readonly EMPTY = new TransformChain([], []);

  readonly #stages: readonly Stage[];
  readonly #predicates: readonly Predicate[];

  private constructor(stages: readonly Stage[], predicates: readonly Predicate[]) {
    this.#stages = stages;
    this.#predicates = predicates;
  }

  /** Creates and configures every transform and predicate; throws ConfigError or TransformModuleError. */
  static async load(
    config: TransformsConfig,
    importModule: Import = (s) => import(s),
  ): Promise<TransformChain> {
    if (config.transforms.length === 0) return TransformChain.EMPTY;
    const predicates = new Map<string, Predicate>();
    const created: (Transformation | Predicate)[] = [];
    try {
      for (const spec of config.predicates) {
        const predicate = await instantiate<Predicate>(spec, 'predicate', 'test', importModule);
        created.push(predicate);
        configure(predicate, spec, `predicates.${spec.alias}.`);
        predicates.set(spec.alias, predicate);
      }
      const stages: Stage[] = [];
      for (const spec of config.transforms) {
        const transform = await instantiate<Transformation>(spec, 'transform', 'apply', importModule);
        created.push(transform);
        configure(transform, spec, `transforms.${spec.alias}.`);
        const predicate = spec.predicate === undefined ? undefined : predicates.get(spec.predicate);
        if (spec.predicate !== undefined && predicate === undefined)
          throw new ConfigError([
            `transforms.${spec.alias}.predicate: ${JSON.stringify(spec.predicate)} is not a defined predicate; accepted: an alias listed in predicates`,
          ]);
        stages.push({ alias: spec.alias, type: spec.type, transform, predicate, negate: spec.negate });
      }
      return new TransformChain(stages, [...predicates.values()]);
    } catch (error) {
      for (const plugin of created) closeQuietly(plugin);
      throw error;
    }
  }

  get size(): number {
    return this.#stages.length;
  }

  /** Runs every record through the chain; a throwing stage makes that record errant, the rest go on. */
  apply(records: readonly SinkRecord[]): ChainResult {
    if (this.#stages.length === 0) return { records: records as SinkRecord[], dropped: 0, failures: [] };
    const out: SinkRecord[] = [];
    const failures: ChainResult['failures'] = [];
    let dropped = 0;
    const stages = this.#stages;
    for (let i = 0; i < records.length; i++) {
      const original = records[i]!;
      const index = original[BATCH_INDEX] ?? i;
      let record: SinkRecord | null = original;
      let s = 0;
      try {
        for (; s < stages.length && record !== null; s++) {
          const stage = stages[s]!;
          // Connect: the transform runs when negate XOR predicate.test(record)
          if (stage.predicate !== undefined && stage.predicate.test(record) === stage.negate) continue;
          const result: unknown = stage.transform.apply(record);
          if (result !== null && typeof result !== 'object')
            throw new TypeError(`apply() returned ${typeof result}; expected a SinkRecord or null`);
          record = result as SinkRecord | null;
        }
      } catch (cause) {
        const stage = stages[s]!;
        failures.push({ index, error: new TransformError(original, stage.alias, stage.type, { cause }) });
        continue;
      }
      if (record === null) {
        dropped++;
        continue;
      }
      // a record a custom transform built itself still acknowledges as the one it came from
      if (record[BATCH_INDEX] !== index) record[BATCH_INDEX] = index;
      out.push(record);
    }
    return { records: out, dropped, failures };
  }

  /** Closes every transform and predicate; errors are swallowed so one bad close cannot block a stop. */
  close(): void {
    for (const stage of this.#stages) closeQuietly(stage.transform);
    for (const predicate of this.#predicates) closeQuietly(predicate);
  }
}

function closeQuietly(plugin: Transformation | Predicate): void {
  try {
    plugin.close?.();
  } catch {
    // closing is best effort: the task is stopping either way
  }
}
