import { definedProps, type ConfigProps } from './config-props.js';
import { resolveConnectorModule } from '../connect/connector-module.js';
import { convertersFromProps } from '../connect/converters/registry.js';
import { ConfigError } from '../errors.js';
import { isSecurityKey } from '../kafka/security/index.js';
import { connectorClientSecurity } from './client-security.js';
import { ConfigProviders } from './config-providers.js';
import { checkConverters, strandedConverterSettings } from './converter-checks.js';
import { CONNECTOR_CONFIG_DEF } from './connector-def.js';
import { misspeltConsumerKeys } from './consumer-keys.js';
import { checkConsumerSettings } from './consumer-settings.js';
import { closestName, didYouMean } from './did-you-mean.js';
import { errorHandlingNotes } from './error-notes.js';
import { overridePolicyProblems } from './override-policy.js';
import { parseValues } from './parse-values.js';
import { applyShareMode, classicModeWarnings, type ConsumerSetting } from './share-mode.js';
import { SHARE_GROUP_PREFIX } from './share-def.js';
import type { ConnectorConfig, ErrorsConfig, GroupProtocol, WorkerConfig } from './types.js';
import { compileTransforms } from './transforms.js';
import { compileTopicsRegex, toGroupProtocol } from './validators.js';

export interface CompileConnectorOptions {
  /** Where relative `connector.class` paths are resolved. Default `process.cwd()`. */
  readonly cwd?: string;
}

/** Everything known about a connector file: the compiled form when valid, and all problems and warnings. */
export interface ConnectorCheck {
  readonly config: ConnectorConfig | undefined;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

const OVERRIDE = 'consumer.override.';
const DECLARED = new Set(CONNECTOR_CONFIG_DEF.configKeys().map((key) => key.name));

/** Compiles connector properties against the worker, or throws one ConfigError listing every problem. */
export function compileConnectorConfig(
  props: ConfigProps,
  worker: WorkerConfig,
  options: CompileConnectorOptions = {},
): ConnectorConfig {
  const check = validateConnectorConfig(props, worker, options);
  if (check.config === undefined) throw new ConfigError(check.problems);
  return check.config;
}

/** Like compileConnectorConfig, but returns problems and warnings instead of throwing (for `validate`). */
export function validateConnectorConfig(
  input: ConfigProps,
  worker: WorkerConfig,
  options: CompileConnectorOptions = {},
): ConnectorCheck {
  const written = definedProps(input);
  // the worker's config.providers resolve ${file:…} / ${env:…} in connector files, as in Connect
  const resolved = (worker.configProviders ?? ConfigProviders.NONE).resolve(written);
  const props = resolved.props;
  const { values, broken, problems } = parseValues(CONNECTOR_CONFIG_DEF, props);
  problems.unshift(...resolved.problems);
  const security = connectorClientSecurity(worker, props);
  problems.push(...security.problems);
  // the worker's connector.client.config.override.policy: every refused key is its own problem
  problems.push(...overridePolicyProblems(worker.overridePolicy, props));
  const warnings: string[] = [...security.warnings];

  const topics = values['topics'];
  const regexSource = values['topics.regex'] ?? '';
  const hasTopics = topics.length > 0 || broken.has('topics');
  const hasRegex = regexSource !== '' || broken.has('topics.regex');
  if (!hasTopics && !hasRegex)
    problems.push(
      `topics: neither topics nor topics.regex is set${misspeltTopicsKey(props)}; accepted: exactly one of topics (a comma-separated list of topic names) or topics.regex (a regular expression matching whole topic names)`,
    );
  if (hasTopics && hasRegex)
    problems.push(
      `topics: both topics (${JSON.stringify(props['topics'])}) and topics.regex (${JSON.stringify(props['topics.regex'])}) are set; accepted: exactly one of them`,
    );
  const compiled = regexSource === '' ? undefined : compileTopicsRegex(regexSource);
  const topicsRegex = compiled instanceof RegExp ? compiled : undefined;

  const protocolText = values['consumer.override.group.protocol']?.toLowerCase();
  const groupProtocol: GroupProtocol =
    protocolText === undefined ? worker.groupProtocol : toGroupProtocol(protocolText);
  const name = values['name'];
  const groupId = values['consumer.override.group.id'] ?? `connect-${name}`;

  const consumerSettings = overlayConsumer(worker, props);
  const misspelt = misspeltConsumerKeys(consumerSettings);
  warnings.push(...misspelt);
  const consumerCheck = checkConsumerSettings(
    consumerSettings,
    groupProtocol,
    worker.bootstrapServers,
    new Set(
      [...consumerSettings]
        .filter(([, s]) => misspelt.some((w) => w.startsWith(`${s.key}:`)))
        .map(([name]) => name),
    ),
  );
  problems.push(...consumerCheck.problems);
  warnings.push(...consumerCheck.warnings);
  const consumer = Object.fromEntries([...consumerSettings].map(([k, s]) => [k, s.value]));
  // the resolved values, so nothing reading `consumer` sees a group other than the one joined
  consumer['group.id'] = groupId;
  consumer['group.protocol'] = groupProtocol;

  const dlqText = values['errors.deadletterqueue.topic.name'] ?? '';
  const dlqTopic = dlqText === '' ? undefined : dlqText;
  let shareGroupConfigs: Record<string, string> = {};
  if (groupProtocol === 'share') {
    if (hasRegex)
      problems.push(
        `topics.regex: share groups subscribe to topic names, not patterns (Kafka's KafkaShareConsumer has only subscribe(topics)); accepted: in share mode, topics (a comma-separated list of topic names)`,
      );
    const share = applyShareMode({ props, values, broken, consumer: consumerSettings, dlqTopic });
    shareGroupConfigs = share.groupConfigs;
    warnings.push(...share.warnings);
    problems.push(...share.problems);
  } else {
    warnings.push(...classicModeWarnings(props));
    if (dlqTopic !== undefined && values['errors.tolerance'] === 'none')
      warnings.push(
        `errors.deadletterqueue.topic.name=${dlqTopic}: errors.tolerance=none fails the task at the first failed record, so nothing reaches the dead-letter topic; set errors.tolerance=all to use it`,
      );
  }

  warnings.push(...errorHandlingNotes(values, groupProtocol));

  const deadLetterTopics = [dlqTopic, shareGroupConfigs['errors.deadletterqueue.topic.name']];
  for (const topic of new Set(deadLetterTopics)) {
    if (topic === undefined || topic === '') continue;
    if (topics.includes(topic) || topicsRegex?.test(topic))
      problems.push(
        `topics: the dead-letter topic ${JSON.stringify(topic)} is also read by this connector; accepted: topics and topics.regex that leave out the dead-letter topic`,
      );
  }

  const converters = convertersFromProps(worker.raw, props);
  const converterCheck = checkConverters(converters, props);
  problems.push(...converterCheck.problems);
  warnings.push(...converterCheck.warnings, ...strandedConverterSettings(props, converters));

  const transforms = compileTransforms(
    props,
    values['transforms'],
    values['predicates'],
    options.cwd ?? process.cwd(),
  );
  problems.push(...transforms.problems);
  warnings.push(...transforms.warnings);

  for (const key of Object.keys(props)) {
    if (key.startsWith('share.') && !key.startsWith(SHARE_GROUP_PREFIX) && !DECLARED.has(key))
      warnings.push(`${key}: not a sharesink setting; ignored${didYouMean(key, DECLARED)}`);
  }

  if (problems.length > 0 || broken.size > 0) return { config: undefined, problems, warnings };

  const errors: ErrorsConfig = {
    tolerance: values['errors.tolerance'] as ErrorsConfig['tolerance'],
    retryTimeoutMs: values['errors.retry.timeout'],
    retryDelayMaxMs: values['errors.retry.delay.max.ms'],
    logEnable: values['errors.log.enable'],
    logIncludeMessages: values['errors.log.include.messages'],
    deadLetterQueueTopic: groupProtocol !== 'share' ? dlqTopic : undefined,
    deadLetterQueueContextHeaders: values['errors.deadletterqueue.context.headers.enable'],
  };
  const connectorClass = values['connector.class'];
  const config: ConnectorConfig = {
    name,
    connectorClass,
    connectorModule: resolveConnectorModule(connectorClass, options.cwd),
    tasksMax: values['tasks.max'],
    topics,
    topicsRegex,
    groupProtocol,
    groupId,
    converters,
    errors,
    transforms: transforms.config,
    putTimeoutMs: values['put.timeout.ms'] ?? Infinity,
    lockRenewal: values['share.lock.renewal'] as ConnectorConfig['lockRenewal'],
    shareMemberScope: values['share.member.scope'] as ConnectorConfig['shareMemberScope'],
    renewFraction: values['share.lock.renew.fraction'],
    retriableAction: values['share.retriable.action'] as ConnectorConfig['retriableAction'],
    maxInFlightBatches: values['max.inflight.batches'],
    putPlacement: values['put.placement'] as ConnectorConfig['putPlacement'],
    shareGroupConfigs,
    consumer,
    warnings,
    raw: { ...props },
    written: resolved.resolvedKeys.length > 0 ? { ...written } : undefined,
    security: security.security,
  };
  return { config, problems, warnings };
}

/** ` (topic=orders is set: did you mean topics?)` when a key of the connector is a near miss. */
function misspeltTopicsKey(props: Readonly<Record<string, string>>): string {
  for (const [key, value] of Object.entries(props)) {
    const meant = closestName(key, ['topics', 'topics.regex'], 2);
    if (meant !== undefined && key !== meant) return ` (${key}=${value} is set: did you mean ${meant}?)`;
  }
  return '';
}

/** Worker `consumer.*` overlaid by connector `consumer.override.*`, remembering who set what. */
function overlayConsumer(
  worker: WorkerConfig,
  props: Readonly<Record<string, string>>,
): Map<string, ConsumerSetting> {
  const settings = new Map<string, ConsumerSetting>();
  for (const [name, value] of Object.entries(worker.consumer))
    settings.set(name, { key: `consumer.${name}`, value });
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith(OVERRIDE)) settings.set(key.slice(OVERRIDE.length), { key, value });
  }
  // security keys are compiled into `security`; left here, classic mode would list them as unused
  for (const name of [...settings.keys()]) if (isSecurityKey(name)) settings.delete(name);
  return settings;
}
