/**
 * Complete validation without connecting: the worker's and the connectors' settings as sharesink
 * declares them, and each connector's own code (its module loaded, its `ConfigDef` and `validate()`
 * run, custom transform modules loaded), with the notes a person should read (did-you-mean, converter
 * surprises). What `sharesink validate`, the REST validate endpoint and `Worker.start()` agree on:
 * a config this calls valid starts, as far as anything short of the broker can tell.
 */
import {
  checkConnectorCode,
  connectorKeyWarnings,
  describeConnectorProblems,
} from '../actors/connector-checks.js';
import type { ConfigDef } from '../connect/config-def.js';
import {
  BUILTIN_CONNECTORS,
  loadConnectorModule,
  resolveConnectorModule,
} from '../connect/connector-module.js';
import type { SinkConnector } from '../connect/sink-connector.js';
import { ConfigProviders } from './config-providers.js';
import { validateConnectorConfig, type CompileConnectorOptions } from './compile-connector.js';
import { validateWorkerConfig } from './compile-worker.js';
import { jsonEnvelopeNotices } from './converter-notices.js';
import type { ConnectorConfig, WorkerConfig } from './types.js';
import { isJavaClassName } from './validators.js';

/** One problem (or note) of one config object, filed under the setting it is about. */
export interface ValidationProblem {
  /** `worker`, or the connector's `name` (`connectors[i]` when it has none). */
  readonly source: string;
  /** The setting, e.g. `http.url`; `''` when the problem is about no single setting. */
  readonly key: string;
  /** What is wrong and what is accepted, without the key. */
  readonly message: string;
  /** For a connector's problem from {@link validateConfigs}: its position in the list it was given. */
  readonly index?: number;
}

/** What {@link validateConnector} finds for one connector. */
export interface ConnectorValidation {
  /** The compiled config; undefined when there is a problem. */
  readonly config: ConnectorConfig | undefined;
  readonly problems: readonly ValidationProblem[];
  /** Warnings and notices: settings with no effect, likely typos (did you mean …?), converter surprises. */
  readonly notes: readonly ValidationProblem[];
  /** The connector's own settings, when its module could be loaded. */
  readonly definition: ConfigDef<Record<string, unknown>> | undefined;
}

/** What {@link validateConfigs} finds for a worker and its connectors. */
export interface ConfigValidation {
  /** True when nothing is wrong: `worker` and every connector compiled, and their code accepts them. */
  readonly valid: boolean;
  readonly worker: WorkerConfig | undefined;
  /** The compiled connectors, in order; only when `valid` (empty otherwise). */
  readonly connectors: readonly ConnectorConfig[];
  /** Every problem of every object, each with its source and key. */
  readonly problems: readonly ValidationProblem[];
  readonly notes: readonly ValidationProblem[];
}

/** `key: message` as sharesink's checks write a problem; `''` as the key when it names none. */
export function asProblem(source: string, text: string): ValidationProblem {
  const m = /^([^\s:]+): ([\s\S]*)$/.exec(text);
  return m === null ? { source, key: '', message: text } : { source, key: m[1]!, message: m[2]! };
}

/** `source: key: message`, the line `sharesink validate` prints. */
export function formatProblem(p: ValidationProblem): string {
  return p.key === '' ? `${p.source}: ${p.message}` : `${p.source}: ${p.key}: ${p.message}`;
}

/**
 * Validates one connector's properties against a compiled worker, without connecting: sharesink's
 * settings, then the connector's code (module, `ConfigDef`, `validate()`, custom transforms). The
 * connector's own checks run even when sharesink's settings have problems, so one call lists them all.
 * Its module is imported: call it only for modules you trust (the REST endpoint checks `plugin.path`).
 */
export async function validateConnector(
  props: Readonly<Record<string, string>>,
  worker: WorkerConfig,
  options: CompileConnectorOptions = {},
): Promise<ConnectorValidation> {
  return validateOne(props, worker, options, props['name']?.trim() || 'connector');
}

async function validateOne(
  props: Readonly<Record<string, string>>,
  worker: WorkerConfig,
  options: CompileConnectorOptions,
  source: string,
): Promise<ConnectorValidation> {
  const check = validateConnectorConfig(props, worker, options);
  const problems = check.problems.map((p) => asProblem(source, p));
  const notes = check.warnings.map((w) => asProblem(source, w));
  const loaded = await loadConnector(props['connector.class'], options.cwd);
  if (check.config !== undefined) {
    const config = check.config;
    // module, validate() and transform modules: the checks Worker.start() runs
    for (const p of await checkConnectorCode(config))
      problems.push(asProblem(source, unprefixed(p, config.name)));
    if (loaded.connector !== undefined) {
      notes.push(...connectorKeyWarnings(loaded.connector, config).map((w) => asProblem(source, w)));
    }
    notes.push(...jsonEnvelopeNotices(config).map((n) => asProblem(source, n)));
  } else if (loaded.connector !== undefined) {
    // sharesink's settings have problems: the connector's own are listed too, on the resolved values
    const resolved = (worker.configProviders ?? ConfigProviders.NONE).resolve(props).props;
    problems.push(...ownProblems(loaded.connector, resolved, source));
  } else if (loaded.error !== undefined && !problems.some((p) => p.key === 'connector.class')) {
    problems.push({ source, key: 'connector.class', message: loaded.error });
  }
  return {
    config: problems.length === 0 ? check.config : undefined,
    problems,
    notes,
    definition: loaded.connector === undefined ? undefined : definitionOf(loaded.connector),
  };
}

/**
 * Validates a worker and its connectors as Kafka Connect properties, without connecting: every
 * problem of every object at once, each with its key. Connectors are checked against what is valid in
 * the worker when the worker has problems, so fixing the worker uncovers nothing new. `valid` means
 * `new Worker({ worker, connectors })` gets past its own checks (the cluster is not looked at).
 *
 * @example
 * ```ts
 * const check = await validateConfigs(workerProps, [ordersProps, auditProps]);
 * if (!check.valid) for (const p of check.problems) logger.error(p, 'invalid configuration');
 * ```
 */
export async function validateConfigs(
  workerProps: Readonly<Record<string, string>>,
  connectorProps: ReadonlyArray<Readonly<Record<string, string>>>,
  options: CompileConnectorOptions = {},
): Promise<ConfigValidation> {
  const workerCheck = validateWorkerConfig(workerProps);
  const problems = workerCheck.problems.map((p) => asProblem('worker', p));
  const notes = workerCheck.warnings.map((w) => asProblem('worker', w));
  const against = workerCheck.config ?? fallbackWorker(workerProps);
  const connectors: ConnectorConfig[] = [];
  const names = new Set<string>();
  for (const [i, props] of connectorProps.entries()) {
    if (against === undefined) break;
    const c = await validateOne(props, against, options, props['name']?.trim() || `connectors[${i}]`);
    problems.push(...c.problems.map((p) => ({ ...p, index: i })));
    notes.push(...c.notes.map((n) => ({ ...n, index: i })));
    if (c.config === undefined) continue;
    if (names.has(c.config.name))
      problems.push({
        source: c.config.name,
        index: i,
        key: 'name',
        message: `two connectors are named ${JSON.stringify(c.config.name)}; names must be unique`,
      });
    names.add(c.config.name);
    connectors.push(c.config);
  }
  const valid = problems.length === 0 && workerCheck.config !== undefined;
  return { valid, worker: workerCheck.config, connectors: valid ? connectors : [], problems, notes };
}

/**
 * The worker properties without the keys that have problems (their defaults instead), to check the
 * connectors against. None when the config providers are broken: every `${…}` reference would then be
 * a problem of its own, which is not what the person has to fix.
 */
function fallbackWorker(props: Readonly<Record<string, string>>): WorkerConfig | undefined {
  const check = validateWorkerConfig(props);
  const broken = new Set(check.problems.map((p) => asProblem('worker', p).key));
  if (broken.has('') || [...broken].some((key) => key.startsWith('config.providers'))) return undefined;
  const rest = Object.fromEntries(Object.entries(props).filter(([key]) => !broken.has(key)));
  if (broken.has('bootstrap.servers')) rest['bootstrap.servers'] = 'localhost:9092';
  return validateWorkerConfig(rest).config;
}

/** The connector `connector.class` names, when it names one that can be imported here; else why not. */
async function loadConnector(
  connectorClass: string | undefined,
  cwd: string | undefined,
): Promise<{ connector?: SinkConnector; error?: string }> {
  const name = connectorClass?.trim() ?? '';
  // no class, or a Java class (the compile says so): nothing to import
  if (name === '' || (isJavaClassName(name) && !(name in BUILTIN_CONNECTORS))) return {};
  try {
    const module = await loadConnectorModule(resolveConnectorModule(name, cwd));
    return { connector: new module.connector() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function ownProblems(
  connector: SinkConnector,
  props: Readonly<Record<string, string>>,
  source: string,
): ValidationProblem[] {
  try {
    return describeConnectorProblems(source, connector.validate(props)).map((p) =>
      asProblem(source, unprefixed(p, source)),
    );
  } catch (err) {
    return [{ source, key: '', message: `the connector's validate() threw: ${(err as Error).message}` }];
  }
}

function definitionOf(connector: SinkConnector): ConfigDef<Record<string, unknown>> | undefined {
  try {
    return connector.config();
  } catch {
    return undefined;
  }
}

/** `name: rest` → `rest` (checkConnectorCode's lines lead with the connector's name). */
function unprefixed(line: string, name: string): string {
  return line.startsWith(`${name}: `) ? line.slice(name.length + 2) : line;
}
