/**
 * kafkajs's log lines, as the classic path writes them to pino. kafkajs logs the normal start of a
 * consumer group on a fresh broker as ERRORs (the group coordinator is loading: "Crash: … The coordinator
 * is loading", "Restarting the consumer in 300ms") and every rebalance as WARNs; here those become debug
 * (a rebalance: info), and a coordinator that stays away gets one WARN after
 * {@link STILL_WAITING_WARN_AFTER_MS}, as in share mode. The patterns are kafkajs 2.2's messages for
 * COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR and its own
 * KafkaJSGroupCoordinatorNotFound; a kafkajs that words them differently only makes the lines loud again.
 */
import { logLevel, type logCreator, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { kafkajsLogger } from './internals.js';
import { StillWaiting } from '../../observability/still-waiting.js';

const COORDINATOR_WAITS: ReadonlyArray<readonly [RegExp, string]> = [
  [/coordinator is loading/i, 'COORDINATOR_LOAD_IN_PROGRESS'],
  [/coordinator is not available|failed to find group coordinator/i, 'COORDINATOR_NOT_AVAILABLE'],
  [/not the correct coordinator/i, 'NOT_COORDINATOR'],
];
const REBALANCING = /group is rebalancing/i;
const RESTARTING = /^Restarting the consumer/;
const JOINED = /^Consumer has joined the group/;

/** The Kafka error name of a retriable coordinator condition kafkajs logged, if it is one. */
export function coordinatorWaitIn(text: string): string | undefined {
  return COORDINATOR_WAITS.find(([pattern]) => pattern.test(text))?.[1];
}

/** `now` replaces the clock of the coordinator wait (tests). */
export function pinoLogCreator(logger: Logger, options: { now?: () => number } = {}): logCreator {
  // one child logger per kafkajs namespace, not per line
  const byNamespace = new Map<string, ReturnType<typeof kafkajsLogger>>();
  let coordinator: StillWaiting | undefined;
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      let target = byNamespace.get(namespace);
      if (target === undefined) {
        target = kafkajsLogger(logger, namespace || 'kafkajs');
        byNamespace.set(namespace, target);
      }
      const { message, timestamp: _t, logger: _l, ...extra } = log;
      const about = `${message} ${typeof extra.error === 'string' ? extra.error : ''}`;
      const waitReason = coordinatorWaitIn(about);
      if (waitReason !== undefined || (coordinator?.waiting === true && RESTARTING.test(message))) {
        coordinator ??= new StillWaiting({ logger, what: coordinatorOf(extra.groupId), now: options.now });
        coordinator.failed(waitReason ?? 'restarting the consumer', { kafkajs: namespace, detail: message });
        return;
      }
      if (JOINED.test(message)) coordinator?.succeeded();
      if (REBALANCING.test(about)) {
        // the Connection's line repeats the Runner's; the Runner's is the one worth seeing (debug is
        // kafkajsLogger's trace)
        if (namespace === 'Connection') target.debug(message, extra);
        else target.info(message, extra);
        return;
      }
      if (level === logLevel.ERROR) target.error(message, extra);
      else if (level === logLevel.WARN) target.warn(message, extra);
      else if (level === logLevel.INFO) target.info(message, extra);
      else target.debug(message, extra);
    };
}

function coordinatorOf(groupId: unknown): string {
  return typeof groupId === 'string'
    ? `the coordinator of consumer group ${groupId}`
    : 'the group coordinator';
}
