/**
 * Reads and compiles a worker file and connector files, reporting every problem of every file at once:
 * a worker file with a problem does not hide the connector files' problems (they are compiled against
 * what is valid in it), and a connector file with a problem in the runtime's settings still gets its
 * connector's own checks (`validate()`: `connection.url`, `http.url`, ...), so one run lists everything.
 */
import { checkConnectorCode, describeConnectorProblems } from '../actors/connector-checks.js';
import {
  BUILTIN_CONNECTORS,
  loadConnectorModule,
  resolveConnectorModule,
} from '../connect/connector-module.js';
import { ConfigError } from '../errors.js';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  loadConnectorConfig,
  loadWorkerConfig,
  validateWorkerConfig,
} from '../config/index.js';
import { ConfigProviders } from '../config/config-providers.js';
import { isJavaClassName } from '../config/validators.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';

export async function compileFiles(
  workerFile: string,
  connectorFiles: readonly string[],
): Promise<{ worker: WorkerConfig; connectors: ConnectorConfig[] }> {
  const problems: string[] = [];
  let worker: WorkerConfig | undefined;
  let workerProps: Record<string, string> | undefined;
  try {
    workerProps = loadWorkerConfig(workerFile);
    worker = compileWorkerConfig(workerProps);
  } catch (err) {
    collect(err, workerFile, problems);
  }
  // the connector files are checked against what is valid in the worker file, so they are listed too
  const against = worker ?? (workerProps === undefined ? undefined : fallbackWorker(workerProps));
  const connectors: ConnectorConfig[] = [];
  const failed: Array<{ file: string; props: Record<string, string> }> = [];
  for (const file of connectorFiles) {
    let props: Record<string, string> | undefined;
    try {
      props = loadConnectorConfig(file);
      if (against) connectors.push(compileConnectorConfig(props, against));
    } catch (err) {
      collect(err, file, problems);
      if (props !== undefined && against !== undefined) failed.push({ file, props });
    }
  }
  const names = new Set<string>();
  for (const c of connectors) {
    if (names.has(c.name))
      problems.push(`name: two connectors are named ${JSON.stringify(c.name)}; names must be unique`);
    names.add(c.name);
  }
  if (problems.length > 0 || !worker) {
    // what the connectors' own code says, so that fixing the list above does not uncover another one
    for (const c of connectors) problems.push(...(await checkConnectorCode(c)));
    for (const { file, props } of failed) problems.push(...(await ownProblems(file, props, against!)));
    throw new ConfigError(problems);
  }
  return { worker, connectors };
}

/**
 * The worker file without the keys that have problems (their defaults instead), to compile connector
 * files against. None when the config providers are broken: every `${…}` reference would then be a
 * problem of its own, which is not what the person has to fix.
 */
function fallbackWorker(props: Record<string, string>): WorkerConfig | undefined {
  const check = validateWorkerConfig(props);
  const broken = new Set(check.problems.map((p) => /^([^\s:]+):/.exec(p)?.[1] ?? ''));
  if (broken.has('') || [...broken].some((key) => key.startsWith('config.providers'))) return undefined;
  // a converter setting's problem (a missing schema.registry.url) drops that converter altogether
  for (const key of [...broken]) {
    const converter = /^(key|value|header)\.converter\./.exec(key)?.[0];
    if (converter !== undefined) broken.add(converter.slice(0, -1));
  }
  const rest = Object.fromEntries(Object.entries(props).filter(([key]) => !broken.has(key)));
  if (broken.has('bootstrap.servers')) rest['bootstrap.servers'] = 'localhost:9092';
  return validateWorkerConfig(rest).config;
}

/**
 * `validate()` of the connector a file names, for a file whose runtime settings have problems: its
 * settings as the worker's config providers resolve them. Nothing when the class cannot be loaded
 * (that is already one of the problems).
 */
async function ownProblems(
  file: string,
  written: Record<string, string>,
  worker: WorkerConfig,
): Promise<string[]> {
  const connectorClass = written['connector.class']?.trim() ?? '';
  if (connectorClass === '' || (isJavaClassName(connectorClass) && !(connectorClass in BUILTIN_CONNECTORS)))
    return [];
  const props = (worker.configProviders ?? ConfigProviders.NONE).resolve(written).props;
  try {
    const module = await loadConnectorModule(resolveConnectorModule(connectorClass));
    const problems = new module.connector().validate(props);
    return describeConnectorProblems(file, problems);
  } catch {
    return [];
  }
}

function collect(err: unknown, file: string, into: string[]): void {
  if (err instanceof ConfigError) for (const p of err.problems) into.push(`${file}: ${p}`);
  else into.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
}
