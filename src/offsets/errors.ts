/**
 * Why an offsets request was refused. The REST routes turn these into Connect's error body with the
 * HTTP status each names; embedders calling {@link ConnectorOffsetsService} directly match on `code`.
 */
import { SharesinkError } from '../errors.js';

/** The body of a PATCH is not Connect's offsets shape, or asks what this mode cannot do. */
export class OffsetsRequestError extends SharesinkError {
  readonly status = 400;
  constructor(message: string) {
    super('SHARESINK_OFFSETS_INVALID', message);
  }
}

/** A member the broker still counts in the connector's group. */
export interface GroupMemberView {
  readonly memberId: string;
  readonly clientId: string;
  readonly host: string;
}

/**
 * The broker refuses to change the offsets of a group with members (NON_EMPTY_GROUP): some client still
 * reads with the connector's group id, another worker or a tool, or a member that has not timed out yet.
 */
export class GroupNotEmptyError extends SharesinkError {
  readonly status = 409;
  readonly members: readonly GroupMemberView[];

  constructor(groupId: string, kind: 'share' | 'consumer', members: readonly GroupMemberView[]) {
    const list = members.map((m) => `${m.memberId} (client.id ${m.clientId}, host ${m.host})`).join(', ');
    super(
      'SHARESINK_OFFSETS_GROUP_NOT_EMPTY',
      `The ${kind} group ${groupId} still has ${members.length} member(s): ${list || 'unknown'}. ` +
        `The broker changes a group's offsets only while it is empty: stop every other worker or client ` +
        `reading with group id ${groupId} (or wait for its session to time out), then retry.`,
    );
    this.members = members;
  }
}
