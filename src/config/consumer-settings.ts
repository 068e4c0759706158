/**
 * The consumer settings a connector ends up with (worker `consumer.*` under connector
 * `consumer.override.*`), checked against what each mode reads. Before, a value the runtime could not
 * use passed `validate` and then failed the task at start (classic: `auto.offset.reset=none`,
 * `max.poll.records=abc`) or was replaced by a default without a word (share mode), and share mode
 * dropped every setting it does not read (`fetch.min.bytes`, `interceptor.classes`, ...) silently.
 */
import type { GroupProtocol } from './types.js';
import type { ConsumerSetting } from './share-mode.js';
import { SHARE_MODE_CONSUMER_RULES } from './share-mode.js';

/** Integer settings the classic consumer reads (src/kafka/kafkajs/classic-consumer.ts), with their lower bound. */
const CLASSIC_INTS: Readonly<Record<string, number>> = {
  'session.timeout.ms': 1,
  'heartbeat.interval.ms': 1,
  'max.poll.interval.ms': 1,
  'max.partition.fetch.bytes': 0,
  'fetch.max.bytes': 0,
  'fetch.min.bytes': 0,
  'fetch.max.wait.ms': 0,
  'max.poll.records': 1,
};

/** Integer settings the share runtime reads (src/actors/connector/task-factory.ts); it takes 0 as unset. */
const SHARE_INTS: Readonly<Record<string, number>> = {
  'max.poll.records': 1,
  'fetch.max.wait.ms': 1,
};

/** Read by both modes, or set by sharesink itself from the connector's own settings. */
const ALWAYS_READ = new Set(['group.id', 'group.protocol']);

const INTEGER = /^\s*\d+\s*$/;

export interface ConsumerSettingsCheck {
  readonly problems: string[];
  readonly warnings: string[];
}

/**
 * Problems for values the connector's mode would fail on or replace, and one note naming the
 * settings that mode does not use. `skip` holds names already warned about (misspelt keys).
 * Classic mode's own list of unused settings is logged by each task at start, so only the settings
 * both modes drop quietly (`client.id`, `bootstrap.servers`) are noted for it here.
 */
export function checkConsumerSettings(
  settings: ReadonlyMap<string, ConsumerSetting>,
  mode: GroupProtocol,
  workerBootstrap: readonly string[],
  skip: ReadonlySet<string> = new Set(),
): ConsumerSettingsCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const ints = mode === 'share' ? SHARE_INTS : CLASSIC_INTS;
  for (const [name, { key, value }] of settings) {
    const min = ints[name];
    if (min !== undefined && !(INTEGER.test(value) && Number(value) >= min))
      problems.push(
        `${key}: ${JSON.stringify(value)} is not an integer of at least ${min}; accepted: an integer, [${min},...]${mode === 'share' && min === 1 && name === 'fetch.max.wait.ms' ? ' (share mode would read 0 as the default, 500)' : ''}`,
      );
  }
  if (mode !== 'share') classicValues(settings, problems);

  const bootstrap = settings.get('bootstrap.servers');
  if (bootstrap !== undefined && !sameServers(bootstrap.value, workerBootstrap))
    problems.push(
      `${bootstrap.key}: ${JSON.stringify(bootstrap.value)} differs from the worker's bootstrap.servers; accepted: the worker's cluster only (sharesink reads every connector's topics from the worker's bootstrap.servers, ${workerBootstrap.join(',')}); run another worker for the other cluster`,
    );
  const clientId = settings.get('client.id');
  if (clientId !== undefined)
    warnings.push(
      `${clientId.key}=${clientId.value}: ignored; sharesink names each client <worker client.id>-<connector name>[-<task>] (set client.id in the worker file for the prefix)`,
    );

  if (mode === 'share') {
    const unread = [...settings]
      .filter(
        ([name]) =>
          !(name in SHARE_INTS) &&
          !(name in SHARE_MODE_CONSUMER_RULES) &&
          !ALWAYS_READ.has(name) &&
          name !== 'bootstrap.servers' &&
          name !== 'client.id' &&
          !skip.has(name),
      )
      .map(([, s]) => s.key);
    if (unread.length > 0)
      warnings.push(
        `${unread.join(', ')}: not used in share mode (sharesink's share consumer reads only max.poll.records and fetch.max.wait.ms of the consumer settings, and maps auto.offset.reset and isolation.level to group configs); ignored`,
      );
  }
  return { problems, warnings };
}

/** auto.offset.reset and isolation.level as the classic consumer reads them (any case). */
function classicValues(settings: ReadonlyMap<string, ConsumerSetting>, problems: string[]): void {
  const reset = settings.get('auto.offset.reset');
  const resetValue = reset?.value.trim().toLowerCase();
  if (reset !== undefined && resetValue !== 'earliest' && resetValue !== 'latest')
    problems.push(
      `${reset.key}: ${JSON.stringify(reset.value)} is not supported in classic mode${resetValue === 'none' ? " (Connect's consumer fails the task on a partition without a committed offset; sharesink does not offer that)" : ''}; accepted: earliest or latest`,
    );
  const isolation = settings.get('isolation.level');
  const isolationValue = isolation?.value.trim().toLowerCase();
  if (isolation !== undefined && isolationValue !== 'read_committed' && isolationValue !== 'read_uncommitted')
    problems.push(
      `${isolation.key}: ${JSON.stringify(isolation.value)} is not an isolation level; accepted: read_committed or read_uncommitted`,
    );
}

/** The same host:port entries, in any order and case. */
function sameServers(value: string, worker: readonly string[]): boolean {
  const norm = (list: readonly string[]) =>
    list
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== '')
      .sort()
      .join(',');
  return norm(value.split(',')) === norm(worker);
}
