/**
 * The herder's errors: what a request to manage connectors can fail with, in the herder's terms
 * (Connect's NotFoundException, AlreadyExistsException, BadRequestException, NotLeaderException,
 * RebalanceNeededException). Each carries a `kind`, which the REST layer turns into an HTTP status in
 * one place (rest/server/errors.ts), and a stable `code` for users.
 */
import { SharesinkError, type SharesinkErrorCode } from '../errors.js';

export type HerderErrorKind =
  | 'bad-request'
  | 'not-found'
  | 'conflict'
  | 'forbidden'
  | 'not-leader'
  | 'rebalance-in-progress'
  | 'not-supported'
  | 'internal';

export class HerderError extends SharesinkError {
  readonly kind: HerderErrorKind;

  constructor(
    kind: HerderErrorKind,
    code: SharesinkErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.kind = kind;
  }
}

/**
 * A write reached a worker that is not the cluster's leader. `leaderUrl` is where it can be made
 * (undefined while no other worker leads); the REST layer forwards the request there.
 */
export class NotLeaderError extends HerderError {
  readonly leaderUrl: string | undefined;
  /** This worker's id, sent along with a forwarded request. */
  readonly workerId: string;

  constructor(leaderUrl: string | undefined, workerId: string) {
    super(
      'not-leader',
      'SHARESINK_HERDER_NOT_LEADER',
      `This worker is not the leader${leaderUrl === undefined ? '' : ` (the leader is ${leaderUrl})`}; writes are made by the leader`,
    );
    this.leaderUrl = leaderUrl;
    this.workerId = workerId;
  }
}

export const connectorNotFound = (name: string): HerderError =>
  new HerderError('not-found', 'SHARESINK_CONNECTOR_NOT_FOUND', `Connector ${name} not found`);

export const taskNotFound = (connector: string, task: string | number): HerderError =>
  new HerderError('not-found', 'SHARESINK_TASK_NOT_FOUND', `Task ${connector}-${task} not found`);

export const connectorExists = (name: string): HerderError =>
  new HerderError('conflict', 'SHARESINK_CONNECTOR_EXISTS', `Connector ${name} already exists`);

/** The request cannot be taken now (a rebalance, the leader changing, the worker joining or stopping); retry. */
export const rebalanceInProgress = (
  message = 'Cannot complete request because of a conflicting operation (e.g. worker rebalance)',
): HerderError => new HerderError('rebalance-in-progress', 'SHARESINK_HERDER_REBALANCING', message);

export const badRequest = (code: SharesinkErrorCode, message: string): HerderError =>
  new HerderError('bad-request', code, message);

/** Connect's refusal (StandaloneHerder.modifyConnectorOffsetsChecks), word for word, in either mode. */
export const notStopped = (name: string): HerderError =>
  badRequest(
    'SHARESINK_CONNECTOR_NOT_STOPPED',
    `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`,
  );
