/**
 * The leader's part of a round: read every member's metadata from the JoinGroup answer, ask the herder for
 * the config at least as new as any member has read, run the assignor and encode each member's share for
 * SyncGroup.
 */
import type { Logger } from 'pino';
import type { JoinGroupMember } from '../../kafka/protocol/messages/join-group.js';
import type { SyncGroupAssignment } from '../../kafka/protocol/messages/sync-group.js';
import type { ClusterConfigSnapshot, WorkerGroupHooks } from '../group-types.js';
import { assign, type AssignorMember, type AssignorState } from './assignor.js';
import {
  decodeMemberMetadata,
  encodeMemberAssignment,
  type ClusterMember,
  type MemberMetadata,
} from './wire-format.js';

export interface LeadInput {
  readonly leaderId: string;
  readonly members: readonly JoinGroupMember[];
  readonly hooks: Pick<WorkerGroupHooks, 'configSnapshot'>;
  readonly previous: AssignorState | undefined;
  readonly now: number;
  readonly maxDelayMs: number;
  readonly logger: Logger;
}

export interface LeadResult {
  readonly assignments: SyncGroupAssignment[];
  /** The assignor's memory for the next round (unchanged when the round could not be computed). */
  readonly state: AssignorState | undefined;
  /** True when the config could not be read: everyone keeps what it runs and the leader retries soon. */
  readonly retry: boolean;
}

function readMembers(
  members: readonly JoinGroupMember[],
  logger: Logger,
): Array<MemberMetadata & ClusterMember> {
  return members.map((m) => {
    try {
      return { memberId: m.memberId, ...decodeMemberMetadata(m.metadata, m.memberId) };
    } catch (err) {
      // a member we cannot read still gets a share: it is in the group and heartbeats
      logger.warn(
        { err, memberId: m.memberId },
        'unreadable worker metadata; treating the member as running nothing',
      );
      return {
        memberId: m.memberId,
        workerId: m.memberId,
        restUrl: '',
        configOffset: -1n,
        connectors: [],
        tasks: [],
      };
    }
  });
}

export async function lead(input: LeadInput): Promise<LeadResult> {
  const members = readMembers(input.members, input.logger);
  const leader = members.find((m) => m.memberId === input.leaderId);
  const cluster: ClusterMember[] = members.map(({ memberId, workerId, restUrl, configOffset }) => ({
    memberId,
    workerId,
    restUrl,
    configOffset,
  }));
  const minOffset = members.reduce((max, m) => (m.configOffset > max ? m.configOffset : max), -1n);
  const common = { leaderId: input.leaderId, leaderUrl: leader?.restUrl ?? '', members: cluster };

  let snapshot: ClusterConfigSnapshot;
  try {
    snapshot = await input.hooks.configSnapshot(minOffset);
  } catch (err) {
    input.logger.error(
      { err, minOffset: minOffset.toString() },
      'the group leader could not read the config topic up to the offset the members reported; everyone keeps its work and the round is retried',
    );
    const assignments = members.map((m) => ({
      memberId: m.memberId,
      assignment: encodeMemberAssignment({
        ...common,
        configOffset: minOffset,
        connectors: m.connectors,
        tasks: m.tasks,
        revokedConnectors: [],
        revokedTasks: [],
        delayMs: 0,
      }),
    }));
    return { assignments, state: input.previous, retry: true };
  }

  const assignorMembers: AssignorMember[] = members.map((m) => ({
    memberId: m.memberId,
    workerId: m.workerId,
    connectors: m.connectors,
    tasks: m.tasks,
  }));
  const result = assign({
    members: assignorMembers,
    snapshot,
    previous: input.previous,
    now: input.now,
    maxDelayMs: input.maxDelayMs,
  });
  const assignments = members.map((m) => {
    const plan = result.plans.get(m.memberId)!;
    return {
      memberId: m.memberId,
      assignment: encodeMemberAssignment({ ...common, configOffset: snapshot.offset, ...plan }),
    };
  });
  if (result.held > 0) {
    input.logger.info(
      { held: result.held, delayMs: result.state.delayDeadline! - input.now },
      'work of departed workers held for scheduled.rebalance.max.delay.ms before it is re-placed',
    );
  }
  return { assignments, state: result.state, retry: false };
}
