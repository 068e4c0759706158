/**
 * Runtime log levels by name, for Connect's `/admin/loggers` (KIP-495): a registry over the pino child
 * loggers the runtime makes. Each child is filed under names read from its bindings:
 *
 * - `root`: every logger;
 * - `connector`, `connector.<name>`: the loggers of a connector and of everything it runs;
 * - `task`, `task.<connector>-<id>`: a task's loggers (Connect's task id form);
 * - one component: `worker`, `rest`, `pool`, `kafka` (share client, kafkajs, broker connections),
 *   `herder`, `offsets`, `preflight`, … the innermost one a child was made for, so that the kafka
 *   client under a task is `kafka`, not also the task runner's component.
 *
 * Setting a name sets it and every known name below it (dotted: `connector` covers
 * `connector.orders`; `root` covers all; a connector covers its tasks), as Connect's Log4j
 * setAllLevels does. A logger in several
 * named sets takes the level set last among them; one no name has been set for keeps following its
 * parent, as pino children do. A child made with a level of its own (a deliberately quiet client) is
 * left alone, and so are its children. Names set before any logger carries them (a connector that
 * starts later) apply when it does.
 */
import { pino, type Logger } from 'pino';

export interface LoggerLevel {
  /** Connect's upper-case name: `DEBUG`, `INFO`, `NOTICE`, `OFF`, … */
  readonly level: string;
  /** When a PUT last changed it (ms since the epoch), or null (KIP-976). */
  readonly last_modified: number | null;
}

export const ROOT_LOGGER = 'root';

/** Connect's (Log4j's) level names and sharesink's `notice`, to pino's. */
const FROM_CONNECT: Readonly<Record<string, string>> = {
  OFF: 'silent',
  FATAL: 'fatal',
  ERROR: 'error',
  WARN: 'warn',
  NOTICE: 'notice',
  INFO: 'info',
  DEBUG: 'debug',
  TRACE: 'trace',
  ALL: 'trace',
};

export const CONNECT_LEVELS = Object.keys(FROM_CONNECT);

/** `component` bindings whose logger name differs from the binding. */
const COMPONENT_NAMES: Readonly<Record<string, string>> = { 'put-pool': 'pool' };
/** Bindings only Kafka clients make. */
const KAFKA_BINDINGS = ['kafkajs', 'broker', 'memberId'];

interface Explicit {
  level: string;
  seq: number;
  modified: number | null;
}

const levelValSym = pino.symbols.levelValSym;
const chindingsSym = pino.symbols.chindingsSym;
/** A binding that gives a child a name its parent does not have (see componentOf and #register). */
const NAMING_BINDING = /"(?:component|connector|task|kafkajs|broker|memberId)":/;
/** Dead loggers' entries are dropped every this many registrations (and at every setLevel). */
const SWEEP_EVERY = 1024;
const registries = new WeakMap<Logger, LogLevels>();

/**
 * The registry of a root logger, made (and hooked into its child creation) on first use. Call it
 * before the runtime makes children of `root`: children made earlier follow `root` but no other name.
 */
export function logLevelsFor(root: Logger, clock: () => number = Date.now): LogLevels {
  let levels = registries.get(root);
  if (levels === undefined) {
    levels = new LogLevels(root, clock);
    registries.set(root, levels);
  }
  return levels;
}

function componentOf(own: Readonly<Record<string, unknown>>): string | undefined {
  const c = own['component'];
  if (typeof c === 'string' && c !== '') return COMPONENT_NAMES[c] ?? c;
  if (KAFKA_BINDINGS.some((k) => own[k] !== undefined)) return 'kafka';
  return undefined;
}

/** Bindings a child adds to its parent's (pino's bindings() are merged). */
function ownBindings(child: Logger, parent: Logger | undefined): Record<string, unknown> {
  const all = child.bindings();
  if (parent === undefined) return all;
  const inherited = parent.bindings();
  return Object.fromEntries(Object.entries(all).filter(([k, v]) => inherited[k] !== v));
}

/**
 * True when setting `namespace` sets `name` too: itself, the dotted names below it, and, since every
 * task belongs to a connector, `connector` covers `task` and `task.*`, `connector.<c>` covers `task.<c>-<id>`.
 */
function covers(namespace: string, name: string): boolean {
  if (namespace === ROOT_LOGGER || name === namespace || name.startsWith(`${namespace}.`)) return true;
  if (namespace === 'connector') return name === 'task' || name.startsWith('task.');
  if (!namespace.startsWith('connector.')) return false;
  const prefix = `task.${namespace.slice('connector.'.length)}-`;
  return name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length));
}

export class LogLevels {
  readonly #root: Logger;
  readonly #clock: () => number;
  /** Every name seen on a logger or set, with its explicit level when one was set. */
  readonly #names = new Map<string, Explicit | undefined>([[ROOT_LOGGER, undefined]]);
  readonly #live = new Set<WeakRef<Logger>>();
  readonly #namesOf = new WeakMap<Logger, readonly string[]>();
  readonly #componentOf = new WeakMap<Logger, string | undefined>();
  /** Children whose level this registry set (an own level that is not the code's choice). */
  readonly #managed = new WeakSet<Logger>();
  #seq = 0;
  #sinceSweep = 0;

  constructor(root: Logger, clock: () => number = Date.now) {
    this.#root = root;
    this.#clock = clock;
    this.#namesOf.set(root, [ROOT_LOGGER]);
    this.#componentOf.set(root, componentOf(root.bindings()));
    const previous = (root as Logger & { onChild?: (child: Logger) => void }).onChild;
    (root as Logger & { onChild: (child: Logger) => void }).onChild = (child: Logger) => {
      previous?.(child);
      this.#register(child);
    };
  }

  /** Pino's name for a Connect level (any case), or undefined when neither Connect nor this logger has it. */
  pinoLevel(connectLevel: string): string | undefined {
    const level = FROM_CONNECT[connectLevel.toUpperCase()];
    if (level === undefined) return undefined;
    return level === 'silent' || this.#root.levels.values[level] !== undefined ? level : undefined;
  }

  /** Every known logger name with its level, sorted by name (Connect's GET /admin/loggers). */
  all(): Record<string, LoggerLevel> {
    const out: Record<string, LoggerLevel> = {};
    for (const name of [...this.#names.keys()].sort()) out[name] = this.#levelOf(name);
    return out;
  }

  /** One logger's level (its own, else its nearest dotted ancestor's, else root's), or undefined if unknown. */
  level(name: string): LoggerLevel | undefined {
    const key = name.toLowerCase() === ROOT_LOGGER ? ROOT_LOGGER : name;
    return this.#names.has(key) ? this.#levelOf(key) : undefined;
  }

  /**
   * Sets `namespace` and every known name below it to a pino level (see pinoLevel), applies it to the
   * live loggers and the ones made later, and returns the names whose level changed, sorted.
   */
  setLevel(namespace: string, level: string): string[] {
    const ns = namespace.toLowerCase() === ROOT_LOGGER ? ROOT_LOGGER : namespace;
    if (!this.#names.has(ns)) this.#names.set(ns, undefined);
    const targets = [...this.#names.keys()].filter((name) => covers(ns, name));
    const before = new Map(targets.map((name) => [name, this.#levelOf(name).level]));
    const seq = ++this.#seq;
    const now = this.#clock();
    const changed: string[] = [];
    for (const name of targets) {
      const differs = before.get(name) !== connectName(level);
      const previous = this.#names.get(name);
      this.#names.set(name, { level, seq, modified: differs ? now : (previous?.modified ?? null) });
      if (differs) changed.push(name);
    }
    if (ns === ROOT_LOGGER) this.#root.level = level;
    for (const ref of this.#live) {
      const logger = ref.deref();
      if (logger === undefined) this.#live.delete(ref);
      else this.#apply(logger);
    }
    return changed.sort();
  }

  /** Its own level, else the one set last on a name that covers it, else the root logger's. */
  #levelOf(name: string): LoggerLevel {
    const own = this.#names.get(name);
    if (own !== undefined) return { level: connectName(own.level), last_modified: own.modified };
    let inherited: Explicit | undefined;
    for (const [other, explicit] of this.#names) {
      if (
        explicit !== undefined &&
        covers(other, name) &&
        (inherited === undefined || explicit.seq > inherited.seq)
      )
        inherited = explicit;
    }
    return { level: connectName(inherited?.level ?? this.#root.level), last_modified: null };
  }

  #register(child: Logger): void {
    const parent = Object.getPrototypeOf(child) as Logger;
    // the common case, a per-batch child ({ batchId }): the same names as its tracked parent, so it
    // follows the parent's level through pino's prototype chain and needs no entry of its own
    if (this.#namesOf.has(parent) && !Object.prototype.hasOwnProperty.call(child, levelValSym)) {
      const own = chindingsOf(child).slice(chindingsOf(parent).length);
      if (!NAMING_BINDING.test(own)) return;
    }
    if (this.#pinned(child)) return;
    const own = ownBindings(child, parent);
    const scoped = own['connector'] !== undefined || own['task'] !== undefined;
    const component = componentOf(own) ?? (scoped ? undefined : this.#componentAbove(parent));
    this.#componentOf.set(child, component);
    const all = child.bindings();
    const names = [ROOT_LOGGER];
    const connector = all['connector'];
    if (typeof connector === 'string') names.push('connector', `connector.${connector}`);
    if (all['task'] !== undefined)
      names.push(
        'task',
        ...(typeof connector === 'string' ? [`task.${connector}-${String(all['task'])}`] : []),
      );
    if (component !== undefined) names.push(component);
    this.#namesOf.set(child, names);
    for (const name of names) if (!this.#names.has(name)) this.#names.set(name, undefined);
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep();
    this.#live.add(new WeakRef(child));
    this.#apply(child);
  }

  /** The component of the nearest tracked logger above (a per-batch child in between has none of its own). */
  #componentAbove(logger: Logger): string | undefined {
    for (let l: Logger | null = logger; l !== null; l = Object.getPrototypeOf(l) as Logger | null) {
      if (this.#componentOf.has(l)) return this.#componentOf.get(l);
      if (l === this.#root) break;
    }
    return undefined;
  }

  #sweep(): void {
    this.#sinceSweep = 0;
    for (const ref of this.#live) if (ref.deref() === undefined) this.#live.delete(ref);
  }

  /** The level set last among the logger's names, if any was set; otherwise it keeps following its parent. */
  #apply(logger: Logger): void {
    if (logger === this.#root) return;
    let chosen: Explicit | undefined;
    for (const name of this.#namesOf.get(logger) ?? []) {
      const explicit = this.#names.get(name);
      if (explicit !== undefined && (chosen === undefined || explicit.seq > chosen.seq)) chosen = explicit;
    }
    if (chosen === undefined || logger.level === chosen.level) return;
    logger.level = chosen.level;
    this.#managed.add(logger);
  }

  /** Made with a level of its own by the code (or below such a logger): not the operator's to change. */
  #pinned(child: Logger): boolean {
    for (
      let l: Logger | null = child;
      l !== null && l !== this.#root;
      l = Object.getPrototypeOf(l) as Logger | null
    ) {
      if (Object.prototype.hasOwnProperty.call(l, levelValSym) && !this.#managed.has(l)) return true;
    }
    return false;
  }
}

/** pino's serialised bindings of a logger, `,"key":value,...`: a child's begin with its parent's. */
function chindingsOf(logger: Logger): string {
  const text = (logger as unknown as Record<symbol, unknown>)[chindingsSym];
  return typeof text === 'string' ? text : '';
}

function connectName(pinoLevel: string): string {
  return pinoLevel === 'silent' ? 'OFF' : pinoLevel.toUpperCase();
}
