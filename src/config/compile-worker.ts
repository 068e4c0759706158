import { availableParallelism } from 'node:os';
import { convertersFromProps } from '../connect/converters/registry.js';
import { ConfigError } from '../errors.js';
import { didYouMean } from './did-you-mean.js';
import { parseValues } from './parse-values.js';
import type { WorkerConfig } from './types.js';
import { WORKER_CONFIG_DEF } from './worker-def.js';

/** Everything known about a worker file: the compiled form when valid, and all problems and warnings. */
export interface WorkerCheck {
  readonly config: WorkerConfig | undefined;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Settings of other clients or of a converter, passed on as they are. */
const PASSED_ON = [
  'consumer.',
  'producer.',
  'admin.',
  'key.converter.',
  'value.converter.',
  'header.converter.',
];
const DECLARED = new Set(WORKER_CONFIG_DEF.configKeys().map((key) => key.name));

/** Compiles worker properties, or throws one ConfigError listing every problem. */
export function compileWorkerConfig(props: Readonly<Record<string, string>>): WorkerConfig {
  const check = validateWorkerConfig(props);
  if (check.config === undefined) throw new ConfigError(check.problems);
  return check.config;
}

/** Like compileWorkerConfig, but returns problems and warnings instead of throwing (for `validate`). */
export function validateWorkerConfig(props: Readonly<Record<string, string>>): WorkerCheck {
  const { values, problems } = parseValues(WORKER_CONFIG_DEF, props);
  const warnings: string[] = [];
  // Connect warns about settings nobody reads; a Connect worker file carries several (plugin.path, offset.storage.*)
  for (const key of Object.keys(props)) {
    if (!DECLARED.has(key) && !PASSED_ON.some((prefix) => key.startsWith(prefix)))
      warnings.push(`${key}: not a sharesink worker setting; ignored${didYouMean(key, DECLARED)}`);
  }
  const protocol = values['consumer.group.protocol'].toLowerCase();
  if (protocol === 'consumer')
    warnings.push(
      'consumer.group.protocol=consumer: read as classic (sharesink joins consumer groups with the classic protocol)',
    );
  if (problems.length > 0) return { config: undefined, problems, warnings };

  const consumer = Object.fromEntries(
    Object.entries(props)
      .filter(([key]) => key.startsWith('consumer.'))
      .map(([key, value]) => [key.slice('consumer.'.length), value]),
  );
  const config: WorkerConfig = {
    bootstrapServers: values['bootstrap.servers'],
    clientId: values['client.id'],
    groupProtocol: protocol === 'share' ? 'share' : 'classic',
    converters: convertersFromProps(props),
    consumer,
    poolThreads: values['pool.threads'] ?? availableParallelism(),
    shutdownGraceMs: values['task.shutdown.graceful.timeout.ms'],
    listeners: values['listeners'],
    raw: { ...props },
    warnings,
  };
  return { config, problems, warnings };
}
