import { describe, expect, it } from 'vitest';
import {
  KafkaAuthorizationError,
  KafkaUnreachableError,
  ShareGroupsUnavailableError,
} from '../../../../src/kafka/errors/cluster-errors.js';
import type { BrokerConnection, BrokerConnectionOptions } from '../../../../src/kafka/connection.js';
import { KafkaConnectionError, UnsupportedVersionError } from '../../../../src/kafka/errors/kafka-errors.js';
import { saslPrincipal, translateKafkajsError } from '../../../../src/kafka/kafkajs/internals.js';
import {
  checkKafkaCluster,
  socketError,
  type PreflightTarget,
} from '../../../../src/kafka/admin/preflight.js';
import { highestCommonVersion, type ApiDefinition } from '../../../../src/kafka/protocol/api.js';
import type { ApiVersionsResponse } from '../../../../src/kafka/protocol/messages/api-versions.js';
import type { MetadataResponseTopic } from '../../../../src/kafka/protocol/messages/metadata.js';
import { UnknownTopicError } from '../../../../src/kafka/share/share-errors.js';

/**
 * ApiVersions of a Kafka 4.4.0 broker as the local broker answered it: the share-group APIs (76–79) are
 * advertised whether share.version is 2 or 0 (checked with `FeatureCommand disable --feature
 * share.version` on a second broker); only the finalized features differ.
 */
const KAFKA_44_RANGES: ReadonlyArray<[number, number, number]> = [
  [3, 0, 13], // Metadata
  [10, 0, 6], // FindCoordinator
  [18, 0, 5], // ApiVersions
  [76, 1, 1], // ShareGroupHeartbeat
  [77, 1, 1], // ShareGroupDescribe
  [78, 1, 2], // ShareFetch
  [79, 1, 2], // ShareAcknowledge
];
/** Kafka 3.9: no share-group APIs at all. */
const KAFKA_39_RANGES = KAFKA_44_RANGES.filter(([key]) => key < 76);

interface Broker {
  ranges?: ReadonlyArray<[number, number, number]>;
  shareVersion?: number;
  /** Metadata topic error codes by name (absent: exists). */
  topics?: Record<string, number>;
  /** FindCoordinator answers, one list per call (the last repeats). */
  coordinatorErrors?: Array<Record<string, number>>;
  /** ShareGroupDescribe error code per group (absent: GROUP_ID_NOT_FOUND, a new group). */
  shareGroups?: Record<string, number>;
}

class FakeConnection implements BrokerConnection {
  readonly nodeId = -1;
  readonly host = '127.0.0.1';
  readonly port = 9092;
  readonly address = '127.0.0.1:9092';
  connected = true;
  readonly calls: string[] = [];
  readonly apiVersions: ApiVersionsResponse;
  private findCalls = 0;

  constructor(private readonly broker: Broker) {
    this.apiVersions = {
      errorCode: 0,
      apiKeys: (broker.ranges ?? KAFKA_44_RANGES).map(([apiKey, minVersion, maxVersion]) => ({
        apiKey,
        minVersion,
        maxVersion,
      })),
      throttleTimeMs: 0,
      supportedFeatures: [],
      finalizedFeaturesEpoch: 1,
      finalizedFeatures:
        (broker.shareVersion ?? 2) > 0
          ? [{ name: 'share.version', maxVersionLevel: broker.shareVersion ?? 2, minVersionLevel: 1 }]
          : [],
      zkMigrationReady: false,
    } as ApiVersionsResponse;
  }

  versions(apiKey: number) {
    const k = this.apiVersions.apiKeys.find((a) => a.apiKey === apiKey);
    return k && { min: k.minVersion, max: k.maxVersion };
  }
  finalizedFeature(name: string) {
    return this.apiVersions.finalizedFeatures.find((f) => f.name === name)?.maxVersionLevel;
  }
  pickVersion(api: Pick<ApiDefinition<unknown, unknown>, 'apiKey' | 'name' | 'minVersion' | 'maxVersion'>) {
    const v = highestCommonVersion([api.minVersion, api.maxVersion], this.versions(api.apiKey));
    if (v === undefined)
      throw new UnsupportedVersionError({
        apiKey: api.apiKey,
        apiName: api.name,
        ours: [api.minVersion, api.maxVersion],
        broker: this.versions(api.apiKey),
        nodeId: -1,
        address: this.address,
      });
    return v;
  }
  send<T>(): Promise<T> {
    throw new Error('not used');
  }
  async call<Req, Res>(api: ApiDefinition<Req, Res>, request: Req): Promise<Res> {
    this.pickVersion(api);
    this.calls.push(api.name);
    const req = request as Record<string, unknown>;
    switch (api.name) {
      case 'Metadata':
        return {
          topics: (req['topics'] as Array<{ name: string }>).map((t): Partial<MetadataResponseTopic> => ({
            name: t.name,
            errorCode: this.broker.topics?.[t.name] ?? 0,
            topicId: 'x',
            partitions: [],
          })),
        } as Res;
      case 'FindCoordinator': {
        const rounds = this.broker.coordinatorErrors ?? [{}];
        const errors = rounds[Math.min(this.findCalls++, rounds.length - 1)]!;
        return {
          coordinators: (req['coordinatorKeys'] as string[]).map((key) => ({
            key,
            nodeId: 1,
            host: this.host,
            port: this.port,
            errorCode: errors[key] ?? 0,
            errorMessage: null,
          })),
        } as Res;
      }
      case 'ShareGroupDescribe':
        return {
          groups: (req['groupIds'] as string[]).map((groupId) => ({
            groupId,
            errorCode: this.broker.shareGroups?.[groupId] ?? 69,
            errorMessage: null,
          })),
        } as Res;
      default:
        throw new Error(`unexpected ${api.name}`);
    }
  }
  onClose(): () => void {
    return () => {};
  }
  async close(): Promise<void> {
    this.connected = false;
  }
}

/** Virtual time: sleeping advances the clock at once. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), advance: (ms: number) => (t += ms) };
}

const classic: PreflightTarget = {
  name: 'connector c1',
  mode: 'classic',
  groupId: 'connect-c1',
  topics: ['orders'],
};
const share: PreflightTarget = {
  name: 'connector s1',
  mode: 'share',
  groupId: 'connect-s1',
  topics: ['orders'],
};

function run(broker: Broker, targets: PreflightTarget[], extra: { principal?: string } = {}) {
  const conn = new FakeConnection(broker);
  const c = clock();
  const done = checkKafkaCluster({
    brokers: ['127.0.0.1:9092'],
    targets,
    timeoutMs: 30_000,
    openConnection: async () => conn,
    now: c.now,
    sleep: c.sleep,
    ...extra,
  });
  return { conn, done };
}

describe('checkKafkaCluster: reaching the cluster', () => {
  const refused = (o: BrokerConnectionOptions) =>
    Promise.reject(
      new KafkaConnectionError(
        `${o.host}:${o.port}`,
        `Connection error: connect ECONNREFUSED ${o.host}:${o.port}`,
      ),
    );

  it('says once that it cannot reach the address, with the socket error, retries until bootstrap.timeout.ms, then fails', async () => {
    const c = clock();
    const waiting: string[] = [];
    let attempts = 0;
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9'],
      targets: [classic],
      timeoutMs: 30_000,
      onWaiting: (m) => waiting.push(m),
      openConnection: (o) => {
        attempts++;
        c.advance(1); // a refused connect takes a moment
        return refused(o);
      },
      now: c.now,
      sleep: c.sleep,
    }).catch((e: unknown) => e);
    expect(waiting).toEqual([
      'cannot reach the Kafka cluster at 127.0.0.1:9 (bootstrap.servers): connect ECONNREFUSED; retrying for up to 30 s (bootstrap.timeout.ms)',
    ]);
    expect(err).toBeInstanceOf(KafkaUnreachableError);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_UNREACHABLE', timeoutMs: 30_000 });
    expect((err as Error).message).toBe(
      `cannot reach the Kafka cluster at 127.0.0.1:9 (bootstrap.servers): connect ECONNREFUSED; gave up after 30 s and ${attempts} attempts (bootstrap.timeout.ms). Check that a broker runs there and that bootstrap.servers names one of its listeners, or raise bootstrap.timeout.ms to wait longer`,
    );
    // backoff doubles to 2 s: about 20 attempts in 30 s, not thousands
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(25);
    expect(c.now()).toBeGreaterThanOrEqual(30_000);
  });

  it('names each address with its own error when they differ, and tries once with bootstrap.timeout.ms=0', async () => {
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9', 'kafka.invalid:9092'],
      targets: [],
      timeoutMs: 0,
      onWaiting: () => expect.fail('no retry with a zero timeout'),
      openConnection: (o) =>
        o.port === 9
          ? refused(o)
          : Promise.reject(
              new KafkaConnectionError(
                'kafka.invalid:9092',
                'Connection error: getaddrinfo ENOTFOUND kafka.invalid',
              ),
            ),
    }).then(
      () => expect.fail('it resolved'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toMatch(
      /^cannot reach the Kafka cluster at 127\.0\.0\.1:9 \(connect ECONNREFUSED\), kafka\.invalid:9092 \(getaddrinfo ENOTFOUND kafka\.invalid\) \(bootstrap\.servers\): none answered; gave up after 0 ms and 1 attempt /,
    );
  });

  it('goes on once a broker answers, having said it was waiting only once', async () => {
    const c = clock();
    const waiting: string[] = [];
    let attempts = 0;
    await checkKafkaCluster({
      brokers: ['127.0.0.1:9092'],
      targets: [classic],
      timeoutMs: 30_000,
      onWaiting: (m) => waiting.push(m),
      openConnection: async (o) => (++attempts < 4 ? refused(o) : new FakeConnection({})),
      now: c.now,
      sleep: c.sleep,
    });
    expect(attempts).toBe(4);
    expect(waiting).toHaveLength(1);
  });

  it('does not retry a SASL failure: the credentials will not get better', async () => {
    let attempts = 0;
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9092'],
      targets: [classic],
      timeoutMs: 30_000,
      onWaiting: () => expect.fail('not a reachability problem'),
      openConnection: () => {
        attempts++;
        return Promise.reject(
          new KafkaConnectionError(
            '127.0.0.1:9092',
            'SASL authentication failed for PLAIN user "alice": bad',
            {
              code: 'SHARESINK_KAFKA_SASL',
            },
          ),
        );
      },
    }).then(
      () => expect.fail('it resolved'),
      (e: unknown) => e as Error,
    );
    expect(attempts).toBe(1);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_SASL' });
  });

  it('reduces a socket error to what Node calls it', () => {
    const e = (m: string) => new KafkaConnectionError('h:1', m);
    expect(socketError(e('Connection error: connect ECONNREFUSED 127.0.0.1:1'), 'h:1')).toBe(
      'connect ECONNREFUSED',
    );
    expect(socketError(e('Connection error: connect ECONNREFUSED ::1:1'), 'h:1')).toBe(
      'connect ECONNREFUSED',
    );
    expect(socketError(e('Connection timeout'), 'h:1')).toBe('Connection timeout');
    expect(socketError(e('Connection error: getaddrinfo ENOTFOUND h'), 'h:1')).toBe(
      'getaddrinfo ENOTFOUND h',
    );
  });
});

describe('checkKafkaCluster: share groups', () => {
  it('passes a 4.4 broker with share groups on, asking ShareGroupDescribe of the group', async () => {
    const { conn, done } = run({}, [share]);
    await done;
    expect(conn.calls).toEqual(['Metadata', 'FindCoordinator', 'ShareGroupDescribe']);
  });

  it('refuses a broker without the share-group APIs (Kafka < 4.1) for share connectors, saying how to go on', async () => {
    const err = await run({ ranges: KAFKA_39_RANGES, shareVersion: 0 }, [share, classic]).done.catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ShareGroupsUnavailableError);
    expect(err).toMatchObject({ code: 'SHARESINK_SHARE_GROUPS_UNAVAILABLE', reason: 'no-share-apis' });
    expect((err as Error).message).toBe(
      'the broker at 127.0.0.1:9092 has no share groups: it does not offer ShareGroupHeartbeat or ShareFetch in a version sharesink speaks (share groups need Kafka 4.1 or later, GA in 4.2), and connector s1 reads through a share group (consumer.override.group.protocol=share): upgrade the cluster to Kafka 4.2 or later, or run it as a classic consumer group with consumer.override.group.protocol=classic',
    );
  });

  it('lets classic connectors run on that broker', async () => {
    await expect(run({ ranges: KAFKA_39_RANGES, shareVersion: 0 }, [classic]).done).resolves.toBeUndefined();
  });

  it('refuses a 4.x broker with share.version=0 (it advertises the APIs but answers UNSUPPORTED_VERSION per group)', async () => {
    const err = await run({ shareVersion: 0, shareGroups: { 'connect-s1': 35 } }, [share]).done.catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'SHARESINK_SHARE_GROUPS_UNAVAILABLE', reason: 'share-version-0' });
    expect((err as Error).message).toBe(
      "the broker at 127.0.0.1:9092 has share groups turned off: the cluster's share.version feature is 0, and connector s1 reads through a share group (consumer.override.group.protocol=share): enable share groups with `kafka-features.sh --bootstrap-server 127.0.0.1:9092 upgrade --feature share.version=1`, or run it as a classic consumer group with consumer.override.group.protocol=classic",
    );
  });
});

describe('checkKafkaCluster: topics and groups', () => {
  it('names a missing topic and its classic connector', async () => {
    const err = await run({ topics: { orders: 3 } }, [classic]).done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownTopicError);
    expect(err).toMatchObject({ code: 'SHARESINK_UNKNOWN_TOPIC', topics: ['orders'] });
    expect((err as Error).message).toBe(
      'topic orders does not exist (read by connector c1); create it first (sharesink does not auto-create the topics a connector reads)',
    );
  });

  it('names every missing topic at once, and skips pattern subscriptions', async () => {
    const regex: PreflightTarget = { name: 'connector r', mode: 'classic', groupId: 'g', topics: [] };
    const err = await run({ topics: { a: 3, b: 3 } }, [
      { ...share, topics: ['a', 'b', 'orders'] },
      regex,
    ]).done.then(
      () => expect.fail('it resolved'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toBe(
      'topics a, b do not exist (read by connector s1); create them first (auto-creation does not apply to share groups)',
    );
  });

  it('names the topic the broker refused, the connector, the principal and the grant', async () => {
    const err = await run({ topics: { orders: 29 } }, [classic], { principal: 'User:ANONYMOUS' }).done.catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(KafkaAuthorizationError);
    expect(err).toMatchObject({
      code: 'SHARESINK_KAFKA_AUTHORIZATION',
      kafkaName: 'TOPIC_AUTHORIZATION_FAILED',
      resourceType: 'topic',
      resourceName: 'orders',
    });
    expect((err as Error).message).toBe(
      'not authorized: TOPIC_AUTHORIZATION_FAILED for topic orders (read by connector c1); User:ANONYMOUS needs READ (and DESCRIBE) on topic orders (an ALLOW ACL, and no DENY ACL, which wins), e.g. kafka-acls.sh --bootstrap-server … --add --allow-principal User:ANONYMOUS --operation Read --topic orders',
    );
  });

  it('names the group the broker refused (FindCoordinator)', async () => {
    const err = await run({ coordinatorErrors: [{ 'connect-c1': 30 }] }, [classic]).done.then(
      () => expect.fail('it resolved'),
      (e: unknown) => e as Error,
    );
    expect(err).toMatchObject({
      kafkaName: 'GROUP_AUTHORIZATION_FAILED',
      resourceType: 'group',
      resourceName: 'connect-c1',
    });
    expect(err.message).toMatch(
      /^not authorized: GROUP_AUTHORIZATION_FAILED for group connect-c1 \(the group of connector c1\); the principal sharesink connects as needs READ on group connect-c1 \(an ALLOW ACL, and no DENY ACL, which wins\), e\.g\. kafka-acls\.sh/,
    );
  });

  it('names the share group the broker refused (ShareGroupDescribe)', async () => {
    const err = await run({ shareGroups: { 'connect-s1': 30 } }, [share]).done.catch(
      (e: unknown) => e as Error,
    );
    expect(err).toMatchObject({ resourceType: 'group', resourceName: 'connect-s1' });
  });

  it('waits out a loading coordinator, and leaves one that stays unavailable to the runtime', async () => {
    const loading = run({ coordinatorErrors: [{ 'connect-s1': 14 }, { 'connect-s1': 15 }, {}] }, [share]);
    await loading.done;
    expect(loading.conn.calls).toEqual([
      'Metadata',
      'FindCoordinator',
      'FindCoordinator',
      'FindCoordinator',
      'ShareGroupDescribe',
    ]);
    const stuck = run({ coordinatorErrors: [{ 'connect-s1': 15 }] }, [share]);
    await stuck.done;
    expect(stuck.conn.calls).not.toContain('ShareGroupDescribe');
  });
});

describe('SASL failures name who was refused', () => {
  it('adds the mechanism and user to kafkajs SASL errors', () => {
    const principal = saslPrincipal({ mechanism: 'plain', username: 'alice', password: 'x' });
    expect(principal).toBe('PLAIN user "alice"');
    const sasl = Object.assign(new Error('SASL PLAIN authentication failed: Invalid username or password'), {
      name: 'KafkaJSSASLAuthenticationError',
    });
    const err = translateKafkajsError('b:9092', sasl, principal) as KafkaConnectionError;
    expect(err.code).toBe('SHARESINK_KAFKA_SASL');
    expect(err.message).toBe(
      'b:9092: SASL authentication failed for PLAIN user "alice": SASL PLAIN authentication failed: Invalid username or password',
    );
    expect(saslPrincipal(undefined)).toBeUndefined();
  });
});
