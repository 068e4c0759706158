/**
 * KIP-558's records in the status topic: one per (connector, active topic), under Connect's key
 * `status-topic-<topic>:connector-<name>`, written once by the first worker whose tasks put records of
 * the topic, and removed (a tombstone) by a reset or the connector's deletion. A topic name cannot hold
 * `:`, so the key splits at its first `:connector-` whatever the connector's name. The value is
 * sharesink's JSON, versioned as the other status records.
 */
import { RECORD_VERSION } from './config-records.js';

export interface TopicStatus {
  readonly topic: string;
  readonly connector: string;
  /** The task that put records of it first. */
  readonly task: number;
  /** When (ms since the epoch) that worker noted it. */
  readonly discoverTimestamp: number;
}

const PREFIX = 'status-topic-';
const SEPARATOR = ':connector-';

export const topicStatusKey = (connector: string, topic: string) =>
  `${PREFIX}${topic}${SEPARATOR}${connector}`;

/** The connector and topic of a topic status key; undefined for any other key. */
export function parseTopicKey(key: string): { connector: string; topic: string } | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const at = key.indexOf(SEPARATOR, PREFIX.length);
  if (at <= PREFIX.length) return undefined;
  const connector = key.slice(at + SEPARATOR.length);
  return connector === '' ? undefined : { topic: key.slice(PREFIX.length, at), connector };
}

export function topicStatusValue(s: TopicStatus): string {
  return JSON.stringify({
    v: RECORD_VERSION,
    topic: s.topic,
    connector: s.connector,
    task: s.task,
    discover_timestamp: s.discoverTimestamp,
  });
}

/** The record's status; undefined when it is not one this version understands. */
export function parseTopicStatus(value: string): TopicStatus | undefined {
  try {
    const v = JSON.parse(value) as Record<string, unknown>;
    if (v['v'] !== RECORD_VERSION || typeof v['topic'] !== 'string' || typeof v['connector'] !== 'string')
      return undefined;
    return {
      topic: v['topic'],
      connector: v['connector'],
      task: typeof v['task'] === 'number' ? v['task'] : -1,
      discoverTimestamp: typeof v['discover_timestamp'] === 'number' ? v['discover_timestamp'] : 0,
    };
  } catch {
    return undefined;
  }
}
