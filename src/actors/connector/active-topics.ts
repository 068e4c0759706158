/**
 * A connector's active topics (Connect's KIP-558): the topics its tasks have handled records of since
 * the connector was created or its topics were reset. As in Connect, a record counts once its key and
 * value converted (before the transforms, whatever the put then did); one a converter failed on does
 * not. The tasks' puts are where that happens in both modes, so the pool the tasks put through is
 * wrapped (`trackingPool`) rather than the share and classic runners each reporting topics of their own.
 *
 * Cost: once per put, never per record while it can be avoided. With a `topics` list, a put looks at
 * nothing once every listed topic is known (most connectors: from their first put on). Until then, and
 * always with `topics.regex`, it walks the put's records comparing each topic with the one before (a
 * put holds runs of one partition's records), and looks the set up only where the topic changes.
 */
import type { RawRecord } from '../../connect/raw-record.js';
import type { ConverterFailureInfo, PutResult } from '../../pool/protocol.js';
import type { PutRunner } from '../../pool/put-runner.js';

export interface ActiveTopicsOptions {
  /** The connector's `topics` list; undefined for `topics.regex`, whose topics are not known ahead. */
  readonly listed: readonly string[] | undefined;
  /** Hears each topic the first time a put carries it after creation or a reset (distributed: writes it). */
  readonly onNew?: ((topic: string, task: number) => void) | undefined;
}

export class ActiveTopics {
  readonly #known = new Set<string>();
  readonly #listed: ReadonlySet<string> | undefined;
  readonly #onNew: ((topic: string, task: number) => void) | undefined;
  /** Listed topics not known yet: at 0 a put is not looked at. Infinity with `topics.regex`. */
  #missing: number;

  constructor(o: ActiveTopicsOptions) {
    this.#listed = o.listed === undefined ? undefined : new Set(o.listed);
    this.#onNew = o.onNew;
    this.#missing = this.#listed?.size ?? Infinity;
  }

  /** The records of one put made by task `task`, but those a converter failed on (`failures`). */
  note(records: readonly RawRecord[], task: number, failures: readonly ConverterFailureInfo[] = []): void {
    if (this.#missing === 0) return;
    const failed = unconverted(failures);
    let last: string | undefined;
    for (let i = 0; i < records.length; i++) {
      if (failed?.has(i) === true) continue;
      const topic = records[i]!.topic;
      if (topic === last) continue;
      last = topic;
      if (!this.#known.has(topic)) this.#add(topic, task);
      if (this.#missing === 0) return;
    }
  }

  /** The active topics, sorted. */
  topics(): string[] {
    return [...this.#known].sort();
  }

  /** Empties the set (`PUT /connectors/{name}/topics/reset`); the next puts fill it again. */
  reset(): void {
    this.#known.clear();
    this.#missing = this.#listed?.size ?? Infinity;
  }

  /** Forgets one topic, so the next put that carries it reports it again (distributed: a reset read back). */
  forget(topic: string): void {
    if (!this.#known.delete(topic)) return;
    if (this.#listed?.has(topic) === true) this.#missing++;
  }

  #add(topic: string, task: number): void {
    this.#known.add(topic);
    if (this.#listed?.has(topic) === true) this.#missing--;
    this.#onNew?.(topic, task);
  }
}

/** Indexes of the records a converter failed on (a transform's failure comes after Connect's note). */
function unconverted(failures: readonly ConverterFailureInfo[]): ReadonlySet<number> | undefined {
  if (failures.length === 0) return undefined;
  const out = new Set<number>();
  for (const f of failures) if (f.code === 'SHARESINK_CONVERTER_FAILED') out.add(f.index);
  return out.size === 0 ? undefined : out;
}

/**
 * Whether the put's records were converted: an ok or per-record answer means the task's put ran; a
 * failed one ran the converters when it spent time in them (a task that could not start never did);
 * an aborted one says nothing about them, and its records come again.
 */
function converted(result: PutResult): boolean {
  if (result.kind === 'ok' || result.kind === 'perRecord') return true;
  return result.kind !== 'aborted' && result.convertMs > 0;
}

/**
 * The pool as task `task` sees it: the records of every put that ran are noted once its result is in.
 * Everything else is the pool's own (bound to it, so its private fields still work behind the proxy).
 */
export function trackingPool(pool: PutRunner, topics: ActiveTopics, task: number): PutRunner {
  const put: PutRunner['put'] = async (poolTask, batch, options) => {
    const result = await pool.put(poolTask, batch, options);
    // a WireBatch (already encoded) is not read here: the runners hand raw records to put()
    if (Array.isArray(batch) && converted(result))
      topics.note(batch as readonly RawRecord[], task, result.converterFailures);
    return result;
  };
  return new Proxy(pool, {
    get(target, key) {
      if (key === 'put') return put;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
