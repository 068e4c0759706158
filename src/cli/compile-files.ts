/**
 * Reads a worker file and connector files and validates them with {@link validateConfigs}: every
 * problem of every file at once, the connectors' own checks (`validate()`: `connection.url`,
 * `http.url`, ...) included, so one run lists everything.
 */
import { ConfigError } from '../errors.js';
import { loadConnectorConfig, loadWorkerConfig } from '../config/index.js';
import {
  formatProblem,
  validateConfigs,
  type ValidationProblem,
  type ConfigValidation,
} from '../config/validate-configs.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';

/** Validates the files; throws one ConfigError listing every problem (a file that cannot be read included). */
export async function validateFiles(
  workerFile: string,
  connectorFiles: readonly string[],
): Promise<ConfigValidation & { worker: WorkerConfig }> {
  const problems: string[] = [];
  const workerProps = readFile(loadWorkerConfig, workerFile, problems);
  const read: Array<{ file: string; props: Record<string, string> }> = [];
  for (const file of connectorFiles) {
    const props = readFile(loadConnectorConfig, file, problems);
    if (props !== undefined) read.push({ file, props });
  }
  if (workerProps === undefined) throw new ConfigError(problems);
  const check = await validateConfigs(
    workerProps,
    read.map((r) => r.props),
  );
  // each problem under the file to fix
  const fileOf = (p: ValidationProblem) => (p.index === undefined ? workerFile : read[p.index]!.file);
  problems.push(...check.problems.map((p) => formatProblem({ ...p, source: fileOf(p) })));
  if (problems.length > 0 || check.worker === undefined) throw new ConfigError(problems);
  return { ...check, worker: check.worker };
}

export async function compileFiles(
  workerFile: string,
  connectorFiles: readonly string[],
): Promise<{ worker: WorkerConfig; connectors: readonly ConnectorConfig[] }> {
  const { worker, connectors } = await validateFiles(workerFile, connectorFiles);
  return { worker, connectors };
}

function readFile(
  load: (path: string) => Record<string, string>,
  file: string,
  into: string[],
): Record<string, string> | undefined {
  try {
    return load(file);
  } catch (err) {
    if (err instanceof ConfigError) for (const p of err.problems) into.push(`${file}: ${p}`);
    else into.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
