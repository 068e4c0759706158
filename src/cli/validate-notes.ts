/** The notes `sharesink validate` prints besides the compiled configs' own warnings. */
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { classicConsumerSettings } from '../kafka/kafkajs/classic-consumer.js';

/**
 * The worker's warnings, then its Connect settings with no effect, one line per reason
 * (`offset.storage.file.filename, offset.flush.interval.ms: no effect here: …`) as the log line at
 * start groups them, rather than the same sentence once per key.
 */
export function workerNotes(worker: Pick<WorkerConfig, 'warnings' | 'unused'>): string[] {
  const byReason = new Map<string, string[]>();
  for (const { key, reason } of worker.unused ?? [])
    byReason.set(reason, [...(byReason.get(reason) ?? []), key]);
  return [
    ...(worker.warnings ?? []),
    ...[...byReason].map(([reason, keys]) => `${keys.join(', ')}: no effect here: ${reason}`),
  ];
}

/**
 * Classic mode: the consumer settings its consumer does not read, which each task logs at start
 * (`consumer settings classic mode does not use`), named as the files wrote them, so `validate` says
 * what `standalone` will. Names a compile warning already covers (a misspelt key) are left out.
 */
export function classicConsumerNotes(
  c: Pick<ConnectorConfig, 'groupProtocol' | 'groupId' | 'consumer' | 'raw' | 'warnings'>,
): string[] {
  if (c.groupProtocol === 'share') return [];
  let ignored: readonly string[];
  try {
    ignored = classicConsumerSettings(c.groupId, c.consumer).ignored;
  } catch {
    return []; // a value it refuses is a compile problem, not a note
  }
  const keys = ignored
    .map((name) => (`consumer.override.${name}` in c.raw ? `consumer.override.${name}` : `consumer.${name}`))
    .filter((key) => !c.warnings.some((w) => w.startsWith(`${key}:`)));
  return keys.length === 0
    ? []
    : [
        `${keys.join(', ')}: not used in classic mode (its consumer reads auto.offset.reset, isolation.level, session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms, max.poll.records and the fetch sizes and wait); ignored`,
      ];
}
