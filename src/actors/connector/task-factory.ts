/**
 * Builds one task's runner from the compiled connector config. Share or classic mode is chosen here
 * and nowhere else: everything from the batch actor rightwards is the same code.
 */
import type { Logger } from 'pino';
import type { InspectionEvent } from 'xstate';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import type { PutRunner } from '../../pool/put-runner.js';
import { ClassicTaskRunner } from '../task/classic/classic-task-runner.js';
import { ShareConsumer } from '../../kafka/share/share-consumer.js';
import { DEFAULT_FETCH_MAX_BYTES, RUNTIME_ACK_LINGER_MS } from '../../kafka/share/share-consumer-options.js';
import { ShareTaskRunner } from '../task/share/share-task-runner.js';
import type { LockSupervisor } from '../task/share/supervisor.js';
import type { DeliveryLimit } from '../errors/release-lines.js';
import { trackingPool, type ActiveTopics } from './active-topics.js';
import { ShareMember, type TaskShareConsumer } from './share-member.js';
import { TopicNamingRunner } from './topic-naming-runner.js';
import type { TaskRunner } from './types.js';

/** What every task of one connector start shares. */
export interface TaskFactoryOptions {
  readonly config: ConnectorConfig;
  readonly worker: WorkerConfig;
  /** The connector's logger; the runners bind their task themselves. */
  readonly logger: Logger;
  readonly pool: PutRunner;
  /** Share mode only. */
  readonly supervisor: LockSupervisor | undefined;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Share mode: the group's delivery limit, when known (records leaving on their last delivery are logged). */
  readonly deliveryLimit?: DeliveryLimit | undefined;
  /** The connector's active topics (`topic.tracking.enable`); undefined: not kept. */
  readonly activeTopics?: ActiveTopics | undefined;
}

export interface BuiltTask {
  readonly runner: TaskRunner;
  /** Share mode: the task's lease on its share member, for its gate and its counters. */
  readonly consumer: TaskShareConsumer | undefined;
}

export type TaskFactory = (
  id: number,
  props: Record<string, string>,
  onFailure: (e: Error) => void,
) => BuiltTask;

export function taskFactory(options: TaskFactoryOptions): TaskFactory {
  // share.member.scope=connector: the tasks made here (this connector start, on this worker) share one
  const shared = new ShareMember(() => shareConsumer(options, undefined));
  return (id, props, onFailure) => {
    if (options.config.groupProtocol !== 'share')
      return { runner: classicRunner(options, id, props, onFailure), consumer: undefined };
    const member =
      options.config.shareMemberScope === 'task' ? new ShareMember(() => shareConsumer(options, id)) : shared;
    return shareRunner(options, id, props, onFailure, member.lease());
  };
}

/** A share member for one task (`taskId`) or for every task of the connector on this worker. */
function shareConsumer(o: TaskFactoryOptions, taskId: number | undefined): ShareConsumer {
  const c = o.config;
  const pollRecords = maxPollRecords(c);
  // a member shared by the tasks fetches for all of them: up to a poll's worth each per ShareFetch
  // (one session carries one request at a time), handed out a poll's worth at a time
  const share = taskId === undefined ? Math.min(c.tasksMax, MAX_FETCH_SHARES) : 1;
  return new ShareConsumer({
    ...kafkajsSecurityOptions(c.security?.consumer),
    brokers: o.worker.bootstrapServers,
    groupId: c.groupId,
    clientId: `${o.worker.clientId}-${c.name}${taskId === undefined ? '' : `-${taskId}`}`,
    logger: taskId === undefined ? o.logger : o.logger.child({ task: taskId }),
    maxRecords: pollRecords * share,
    pollMaxRecords: pollRecords,
    fetchMaxPolls: Math.max(share, FETCH_WINDOW_POLLS),
    fetchMaxBytes: DEFAULT_FETCH_MAX_BYTES * share,
    fetchMaxWaitMs: numberOr(c.consumer['fetch.max.wait.ms'], 500),
    ackLingerMs: RUNTIME_ACK_LINGER_MS,
  });
}

/** A shared member's ShareFetch asks for at most this many tasks' worth of records and bytes. */
const MAX_FETCH_SHARES = 8;
/**
 * While its polls take the pieces fast, a ShareFetch may ask for up to this many polls' worth
 * (fetch-window.ts): one fetch and its acknowledgements then serve four puts (the acks linger for
 * it: ADR 0021). Measured with
 * bench/jdbc-ab.ts (MariaDB, 1 task, 3 rounds each): 4 and 8 polls' worth gave 0.56 and 0.58 of the
 * bare driver loop, one poll's worth 0.40 and 0.48; the broker's CPU per row fell from 6–18 µs to 5–11.
 */
const FETCH_WINDOW_POLLS = 4;

function commonOptions(
  o: TaskFactoryOptions,
  id: number,
  props: Record<string, string>,
  onFailure: (e: Error) => void,
) {
  const c = o.config;
  return {
    connector: c.name,
    taskId: id,
    pool: o.activeTopics === undefined ? o.pool : trackingPool(o.pool, o.activeTopics, id),
    poolTask: { id: `${c.name}-${id}`, props, converters: c.converters, transforms: c.transforms },
    logger: o.logger,
    errorsLog: { enable: c.errors.logEnable, includeMessages: c.errors.logIncludeMessages },
    maxInFlightBatches: c.maxInFlightBatches,
    shutdownGraceMs: o.worker.shutdownGraceMs,
    onFailure,
    inspect: o.inspect,
  };
}

function shareRunner(
  o: TaskFactoryOptions,
  id: number,
  props: Record<string, string>,
  onFailure: (e: Error) => void,
  consumer: TaskShareConsumer,
): BuiltTask {
  const c = o.config;
  const runner = new ShareTaskRunner({
    ...commonOptions(o, id, props, onFailure),
    topics: c.topics,
    errorsTolerance: c.errors.tolerance,
    retryDelayMaxMs: c.errors.retryDelayMaxMs,
    consumer,
    supervisor: o.supervisor!,
    maxPollRecords: maxPollRecords(c),
    lockRenewal: c.lockRenewal,
    retriableAction: c.retriableAction,
    deliveryLimit: () => o.deliveryLimit,
    retryTimeoutMs: c.errors.retryTimeoutMs,
  });
  return { runner, consumer };
}

function classicRunner(
  o: TaskFactoryOptions,
  id: number,
  props: Record<string, string>,
  onFailure: (e: Error) => void,
): TaskRunner {
  const c = o.config;
  const runner = new ClassicTaskRunner({
    // the consumer's; the dead-letter producer has its own (errors.deadLetterQueueSecurity)
    ...kafkajsSecurityOptions(c.security?.consumer),
    ...commonOptions(o, id, props, onFailure),
    topics: c.topicsRegex ? undefined : c.topics,
    topicsRegex: c.topicsRegex,
    groupId: c.groupId,
    groupProtocol: c.groupProtocol === 'consumer' ? 'consumer' : 'classic',
    consumer: c.consumer,
    brokers: o.worker.bootstrapServers,
    clientId: `${o.worker.clientId}-${c.name}-${id}`,
    errors: {
      ...c.errors,
      ...(c.security === undefined
        ? {}
        : {
            deadLetterQueueSecurity: {
              producer: kafkajsSecurityOptions(c.security.producer),
              admin: kafkajsSecurityOptions(c.security.admin),
            },
          }),
    },
  });
  // a regex subscription names no topic that could be missing
  return c.topicsRegex ? runner : new TopicNamingRunner(runner, c, o.worker, o.logger);
}

/** `max.poll.records`: one put's records at most, and one poll's share of a fetch. */
function maxPollRecords(c: ConnectorConfig): number {
  return numberOr(c.consumer['max.poll.records'], 500);
}

function numberOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}
