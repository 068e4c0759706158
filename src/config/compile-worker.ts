import { definedProps, type ConfigProps } from './config-props.js';
import { availableParallelism } from 'node:os';
import { convertersFromProps } from '../connect/converters/registry.js';
import { ConfigError } from '../errors.js';
import { isSecurityKey } from '../kafka/security/index.js';
import { workerClientSecurity } from './client-security.js';
import { CONFIG_PROVIDERS_KEY, ConfigProviders } from './config-providers.js';
import { checkConverters } from './converter-checks.js';
import { CONNECT_WORKER_KEYS, isUnusedConnectSetting, unusedConnectSettings } from './connect-worker-keys.js';
import { didYouMean } from './did-you-mean.js';
import { parseValues } from './parse-values.js';
import { compileOverridePolicy } from './override-policy.js';
import { compileRestSecurity } from './rest-security.js';
import type { UnusedSetting } from './connect-worker-keys.js';
import type { WorkerConfig } from './types.js';
import { SECURITY_CONFIG_DEF } from './security-def.js';
import { WORKER_CONFIG_DEF } from './worker-def.js';
import { toGroupProtocol } from './validators.js';

/** Everything known about a worker file: the compiled form when valid, and all problems and warnings. */
export interface WorkerCheck {
  readonly config: WorkerConfig | undefined;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** Kafka Connect settings that have no effect here, each with why (logged once, at info, at start). */
  readonly unused: readonly UnusedSetting[];
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
/** What a misspelt name may have meant: a sharesink setting, or a Connect one (then listed as unused). */
const HINTS = [
  ...DECLARED,
  ...CONNECT_WORKER_KEYS,
  ...SECURITY_CONFIG_DEF.configKeys().map((key) => key.name),
  CONFIG_PROVIDERS_KEY,
];

/** Read elsewhere than WORKER_CONFIG_DEF: client security (client-security.ts) and config providers. */
function readElsewhere(key: string): boolean {
  return isSecurityKey(key) || key === CONFIG_PROVIDERS_KEY || key.startsWith(`${CONFIG_PROVIDERS_KEY}.`);
}

/** Compiles worker properties, or throws one ConfigError listing every problem. */
export function compileWorkerConfig(props: ConfigProps): WorkerConfig {
  const check = validateWorkerConfig(props);
  if (check.config === undefined) throw new ConfigError(check.problems);
  return check.config;
}

/** Like compileWorkerConfig, but returns problems and warnings instead of throwing (for `validate`). */
export function validateWorkerConfig(input: ConfigProps): WorkerCheck {
  const written = definedProps(input);
  // ${file:…} / ${env:…} first: every check below sees the values the worker will use
  const providers = ConfigProviders.fromWorkerProps(written);
  const resolved = providers.providers.resolve(written);
  const props = resolved.props;
  const { values, problems } = parseValues(WORKER_CONFIG_DEF, props);
  problems.unshift(...providers.problems, ...resolved.problems);
  const security = workerClientSecurity(props);
  problems.push(...security.problems);
  const warnings: string[] = [...security.warnings];
  // a Connect worker file carries settings with no meaning here (plugin.path, offset.storage.*): they are
  // listed once as unused; anything else unknown is a warning, with a hint when it looks like a typo
  const unused = unusedConnectSettings(props);
  for (const key of Object.keys(props)) {
    if (DECLARED.has(key) || readElsewhere(key) || isUnusedConnectSetting(key)) continue;
    if (!PASSED_ON.some((prefix) => key.startsWith(prefix)))
      warnings.push(`${key}: not a sharesink worker setting; ignored${didYouMean(key, HINTS)}`);
  }
  // TLS material and credentials files are read now, so a bad one is a problem named by its key
  const rest = compileRestSecurity((key) => (values as Record<string, unknown>)[key], props);
  problems.push(...rest.problems);
  const override = compileOverridePolicy((key) => (values as Record<string, unknown>)[key]);
  warnings.push(...override.warnings);
  warnings.push(...javaPluginPath(values['plugin.path']));
  const converters = convertersFromProps(props);
  const converterCheck = checkConverters(converters, props);
  problems.push(...converterCheck.problems);
  warnings.push(...converterCheck.warnings);
  const protocol = toGroupProtocol(values['consumer.group.protocol']);
  if (problems.length > 0) return { config: undefined, problems, warnings, unused };

  const consumer = Object.fromEntries(
    Object.entries(props)
      // security keys are compiled into `security`, not passed on as consumer settings
      .filter(([key]) => key.startsWith('consumer.') && !isSecurityKey(key.slice('consumer.'.length)))
      .map(([key, value]) => [key.slice('consumer.'.length), value]),
  );
  const config: WorkerConfig = {
    bootstrapServers: values['bootstrap.servers'],
    clientId: values['client.id'],
    groupProtocol: protocol,
    converters,
    consumer,
    poolThreads: values['pool.threads'] ?? availableParallelism(),
    poolPutsPerThread: values['pool.puts.per.thread'],
    poolAbortGraceMs: values['pool.abort.grace.ms'],
    shutdownGraceMs: values['task.shutdown.graceful.timeout.ms'],
    lagPollIntervalMs: values['metrics.lag.poll.interval.ms'],
    listeners: values['listeners'],
    pluginPath: values['plugin.path'],
    rest: rest.security,
    bootstrapTimeoutMs: values['bootstrap.timeout.ms'],
    topicTrackingEnable: values['topic.tracking.enable'],
    topicTrackingAllowReset: values['topic.tracking.allow.reset'],
    logLevel: values['log.level']?.toLowerCase(),
    raw: { ...props },
    security: security.security,
    configProviders: providers.providers,
    overridePolicy: override.policy,
    warnings,
    unused,
  };
  return { config, problems, warnings, unused };
}

/**
 * `plugin.path` entries that are Java archives, as Kafka's quickstart has people add
 * (`plugin.path=libs/connect-file-4.0.0.jar`): harmless, but the person expects them to provide the
 * connector, which they cannot.
 */
function javaPluginPath(entries: readonly string[]): string[] {
  const jars = entries.filter((entry) => /\.(jar|zip)$/i.test(entry));
  if (jars.length === 0) return [];
  return [
    `plugin.path: ${jars.join(', ')}: ${jars.length === 1 ? 'a Java archive' : 'Java archives'}, which sharesink cannot load (it runs no Java); no effect. plugin.path names directories of Node connector, converter and transform modules that REST requests may name; the built-in sinks (FileStreamSink, PostgresSink, the JDBC sink, HttpSink, KafkaSink, NoopSink) need none`,
  ];
}
