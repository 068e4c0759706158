/**
 * The worker group member: membership of the sharesink worker cluster on Kafka's classic group protocol,
 * with the incremental cooperative assignor the leader runs. The herder drives it through the
 * {@link WorkerGroupMember} contract of `../group-types.ts`.
 *
 * @example
 * ```ts
 * const member = createWorkerGroupMember(
 *   { groupId: 'sharesink-cluster', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 60_000,
 *     heartbeatIntervalMs: 3_000, scheduledRebalanceMaxDelayMs: 0,
 *     kafka: { brokers: ['127.0.0.1:9092'], clientId: 'worker-1' }, logger, onFatal: (e) => exit(e) },
 *   { metadata, configSnapshot, revoke, assigned },
 * );
 * await member.start();     // resolves with the first assignment held
 * member.requestRejoin('connector orders: tasks.max 3 → 6');
 * await member.stop();      // revoke() everything, LeaveGroup
 * ```
 */
export { createWorkerGroupMember, type WorkerGroupOptions } from './member.js';
export {
  assign,
  type AssignorInput,
  type AssignorMember,
  type AssignorResult,
  type AssignorState,
  type MemberPlan,
} from './assignor.js';
export { PROTOCOL_NAME, PROTOCOL_TYPE } from './wire-format.js';
