/**
 * checkSinkTask used the wrong way. Before these checks a task instance or a class passed where a
 * factory belongs, or a task missing `preCommit()`, made every put fail: every record was REJECTed,
 * nothing was written, nothing ACCEPTed could be lost, and the check passed. Misuse is a TypeError
 * thrown at once (KitUsageError), never a counter-example.
 */

/** Misuse of the kit: ends the check at once, whatever run it is found in. */
export class KitUsageError extends TypeError {
  override name = 'KitUsageError';
}

/** What the kit calls on a task; `version()` because the runtime's loader requires it. */
const TASK_METHODS = ['version', 'initialize', 'start', 'open', 'put', 'preCommit', 'close', 'stop'] as const;

const isClass = (f: unknown): boolean =>
  typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));

/** The class name of an instance; undefined for a plain object. */
const classOf = (value: object): string | undefined => {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : undefined;
};

export function checkArguments(taskFactory: unknown, options: unknown): void {
  const usage = 'checkSinkTask(taskFactory, options): ';
  if (isClass(taskFactory)) {
    const name = (taskFactory as { name?: string }).name || 'MyTask';
    throw new KitUsageError(
      `${usage}taskFactory is the class ${name}; pass a function that makes a new instance: () => new ${name}()`,
    );
  }
  if (typeof taskFactory !== 'function') {
    const what =
      typeof taskFactory === 'object' && taskFactory !== null
        ? typeof (taskFactory as { task?: unknown }).task === 'function'
          ? 'a connector module; pass () => new module.task()'
          : `a task instance; the kit makes instances of its own (one per simulated pool thread, new ones after a crash): pass () => new ${classOf(taskFactory) ?? 'MyTask'}()`
        : `${String(taskFactory)}; pass () => new MyTask()`;
    throw new KitUsageError(`${usage}taskFactory is ${what}`);
  }
  if (typeof (options as { observe?: unknown } | undefined)?.observe !== 'function')
    throw new KitUsageError(
      `${usage}options.observe is required: (run) => Map of record id (topic/partition/offset) → times ` +
        'your sink wrote it, read from where the task writes (docs/testing-kit.md)',
    );
}

const describe = (task: unknown): string => {
  if (task === null || typeof task !== 'object') return String(task);
  const name = classOf(task);
  return name === undefined ? 'an object' : `a ${name}`;
};

/** Throws when what the factory made is not a SinkTask, naming what it lacks. */
export function checkTask(task: unknown): void {
  const missing = TASK_METHODS.filter(
    (m) => typeof (task as Record<string, unknown> | null | undefined)?.[m] !== 'function',
  );
  if (missing.length === 0) return;
  if (typeof (task as { task?: unknown } | null | undefined)?.task === 'function')
    throw new KitUsageError(
      'checkSinkTask: taskFactory() returned a connector module; return a task: () => new module.task()',
    );
  throw new KitUsageError(
    `checkSinkTask: taskFactory() made ${describe(task)} ` +
      `that lacks ${missing.map((m) => `${m}()`).join(', ')}: a task must extend SinkTask (from 'sharesink'), ` +
      'which provides initialize(), open(), preCommit() and close(), and implement version(), start(), put() and stop()',
  );
}

/** observe()'s answer must be a Map (or anything with get() and entries). */
export function checkWritten(written: unknown): asserts written is ReadonlyMap<string, number> {
  const map = written as Partial<ReadonlyMap<string, number>> | null | undefined;
  if (typeof map?.get === 'function' && typeof map[Symbol.iterator] === 'function') return;
  const hint =
    typeof written === 'object' && written !== null
      ? ' (for a plain object: new Map(Object.entries(counts)))'
      : '';
  throw new KitUsageError(
    `checkSinkTask: observe() must return a Map of record id → times written, got ${
      written === null || typeof written !== 'object' ? String(written) : 'an object that is not a Map'
    }${hint}`,
  );
}
