/** Errors the share consumer raises itself (codes documented in docs/share-consumer.md). */
import { SharesinkError } from '../../errors.js';

export class UnknownTopicError extends SharesinkError {
  readonly topics: readonly string[];
  /**
   * `readBy` names who reads them (`connector s1`); `classic` says why a classic group does not create
   * them either (sharesink's classic consumer asks the broker not to, as the topic's settings are the
   * operator's choice), where the default wording speaks of share groups.
   */
  constructor(topics: readonly string[], options: { readBy?: string; mode?: 'share' | 'classic' } = {}) {
    const many = topics.length > 1;
    const readBy = options.readBy === undefined ? '' : ` (read by ${options.readBy})`;
    const why =
      options.mode === 'classic'
        ? 'sharesink does not auto-create the topics a connector reads'
        : 'auto-creation does not apply to share groups';
    super(
      'SHARESINK_UNKNOWN_TOPIC',
      `topic${many ? 's' : ''} ${topics.join(', ')} do${many ? '' : 'es'} not exist${readBy}; ` +
        `create ${many ? 'them' : 'it'} first (${why})`,
    );
    this.topics = topics;
  }
}

/** Acknowledging a record this consumer was not given, or one already acknowledged. */
export class AckNotAllowedError extends SharesinkError {
  constructor(topic: string, partition: number, offsets: readonly number[]) {
    const shown =
      offsets.slice(0, 5).join(', ') + (offsets.length > 5 ? `, … (${offsets.length} in all)` : '');
    super(
      'SHARESINK_ACK_NOT_ACQUIRED',
      `cannot acknowledge ${topic}-${partition} offset(s) ${shown}: not delivered to this consumer by poll(), ` +
        'or already acknowledged with a final type (accept, release, reject)',
    );
  }
}

export class RenewUnsupportedError extends SharesinkError {
  constructor(nodeId: number | undefined) {
    super(
      'SHARESINK_RENEW_UNSUPPORTED',
      `lock renewal (acknowledge type RENEW) needs ShareAcknowledge v2, i.e. Kafka ≥ 4.2 (KIP-1222); ` +
        `broker ${nodeId ?? '(unknown leader)'} does not offer it. Upgrade the broker, or raise the group config ` +
        'share.record.lock.duration.ms above the longest processing time',
    );
  }
}

/**
 * The share session these acknowledgements belonged to is gone (broker restart, eviction, connection
 * loss). The broker releases the records when their locks expire and redelivers them.
 */
export class SessionResetError extends SharesinkError {
  constructor(detail: string) {
    super(
      'SHARESINK_SHARE_SESSION_RESET',
      `${detail}; these acknowledgements were not applied and the records will be redelivered after their lock expires`,
    );
  }
}

export class ConsumerClosedError extends SharesinkError {
  constructor() {
    super('SHARESINK_CONSUMER_CLOSED', 'the share consumer is closed; create a new one');
  }
}
