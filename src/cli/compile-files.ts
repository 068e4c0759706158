/** Reads and compiles a worker file and connector files, reporting every problem of every file at once. */
import { ConfigError } from '../errors.js';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  loadConnectorConfig,
  loadWorkerConfig,
} from '../config/index.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';

export async function compileFiles(
  workerFile: string,
  connectorFiles: readonly string[],
): Promise<{ worker: WorkerConfig; connectors: ConnectorConfig[] }> {
  const problems: string[] = [];
  let worker: WorkerConfig | undefined;
  try {
    worker = compileWorkerConfig(await loadWorkerConfig(workerFile));
  } catch (err) {
    collect(err, workerFile, problems);
  }
  const connectors: ConnectorConfig[] = [];
  for (const file of connectorFiles) {
    try {
      const props = await loadConnectorConfig(file);
      if (worker) connectors.push(compileConnectorConfig(props, worker));
    } catch (err) {
      collect(err, file, problems);
    }
  }
  const names = new Set<string>();
  for (const c of connectors) {
    if (names.has(c.name))
      problems.push(`name: two connectors are named ${JSON.stringify(c.name)}; names must be unique`);
    names.add(c.name);
  }
  if (problems.length > 0 || !worker) throw new ConfigError(problems);
  return { worker, connectors };
}

function collect(err: unknown, file: string, into: string[]): void {
  if (err instanceof ConfigError) for (const p of err.problems) into.push(`${file}: ${p}`);
  else into.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
}
