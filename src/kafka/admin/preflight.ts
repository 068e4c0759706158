/**
 * One look at the cluster before any task starts, so that what no task-level retry can fix is said once,
 * clearly, instead of as a stream of client warnings from every task:
 *
 * 1. reach a bootstrap broker, retrying for `timeoutMs` (`bootstrap.timeout.ms`); the first failure is
 *    reported once (`onWaiting`), the last one is the error;
 * 2. share groups: the broker offers the share-group APIs (Kafka ≥ 4.1) and does not refuse them
 *    (`share.version` ≥ 1; a 4.x broker with share.version=0 still advertises them in ApiVersions, so
 *    ShareGroupDescribe of the group is what tells);
 * 3. the topics named in `topics` exist, and the client may read them;
 * 4. the client may use the groups (FindCoordinator answers GROUP_AUTHORIZATION_FAILED otherwise).
 *
 * Anything else, e.g. a coordinator still loading, is left to the runtime, which retries it.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import {
  KafkaAuthorizationError,
  KafkaUnreachableError,
  ShareGroupsUnavailableError,
  describeAttempts,
  formatDuration,
} from '../errors/cluster-errors.js';
import { openBrokerConnection, type BrokerConnection, type BrokerConnectionOptions } from '../connection.js';
import type { SaslConfig, SslConfig } from '../kafkajs/internals.js';
import {
  KafkaConnectionError,
  KafkaErrorCode,
  UnsupportedVersionError,
  kafkaErrorName,
} from '../errors/kafka-errors.js';
import { socketError } from '../errors/failure-reason.js';
import { highestCommonVersion } from '../protocol/api.js';
import { CoordinatorKeyType, FindCoordinator } from '../protocol/messages/find-coordinator.js';
import { Metadata, metadataForTopicNames } from '../protocol/messages/metadata.js';
import { ShareFetch } from '../protocol/messages/share-fetch.js';
import { ShareGroupDescribe } from '../protocol/messages/share-group-describe.js';
import { ShareGroupHeartbeat } from '../protocol/messages/share-group-heartbeat.js';
import { UnknownTopicError } from '../share/share-errors.js';
import { tlsFailure } from '../errors/tls-errors.js';
import { authenticationFailure } from '../errors/auth-errors.js';
import {
  explainClosedWithoutSasl,
  explainConnectFailure,
  offersClientCertificate,
  protocolOf,
  type ListenerProbeOptions,
} from '../security/listener-probe.js';

/** Moved to failure-reason.ts; still exported here for the callers that know it from here. */
export { socketError };

/** One reader of the cluster: a connector, say. */
export interface PreflightTarget {
  /** For messages: `connector s1`. */
  readonly name: string;
  readonly mode: 'share' | 'classic' | 'consumer';
  readonly groupId: string;
  /** Topic names it reads; empty for a pattern subscription (nothing to check). */
  readonly topics: readonly string[];
}

export interface PreflightOptions {
  /** `bootstrap.servers`, `host:port`. */
  readonly brokers: readonly string[];
  readonly targets: readonly PreflightTarget[];
  /** How long to keep trying to reach a bootstrap broker (`bootstrap.timeout.ms`); 0 tries once. */
  readonly timeoutMs: number;
  readonly clientId?: string;
  readonly logger?: Logger;
  /** The principal the clients authenticate as, when known (`User:ANONYMOUS` without SASL), for messages. */
  readonly principal?: string;
  /** TLS and SASL of the check's connection (src/kafka/security: the connectors' consumer settings). */
  readonly ssl?: SslConfig;
  readonly sasl?: SaslConfig;
  /** Told once, when the first attempt to reach the cluster fails and the check keeps trying. Default: a WARN log line. */
  readonly onWaiting?: (message: string) => void;
  /** Replaces {@link openBrokerConnection} (tests). */
  readonly openConnection?: (options: BrokerConnectionOptions) => Promise<BrokerConnection>;
  /** Replaces the TLS probe of a listener that closed a plaintext connection (tests). */
  readonly speaksTls?: ListenerProbeOptions['speaksTls'];
  /** Replaces the timers (tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 2000;
const CONNECT_TIMEOUT_MS = 10_000;
/** How long a group coordinator may stay unavailable before the check leaves the groups to the runtime. */
const COORDINATOR_WAIT_MS = 10_000;

/**
 * Checks that the cluster can serve `targets`; resolves when it can (or when what remains is for the
 * runtime's retries).
 * @throws KafkaUnreachableError, ShareGroupsUnavailableError, UnknownTopicError, KafkaAuthorizationError,
 *   KafkaTlsError (a certificate refused either way, a listener that is not TLS, or a TLS listener and a
 *   client that is not), KafkaAuthenticationError (`SHARESINK_KAFKA_SASL`: the user, the password or the
 *   mechanism refused), or SaslRequiredError (`SHARESINK_KAFKA_SASL`: a SASL listener, a client without SASL).
 */
export async function checkKafkaCluster(options: PreflightOptions): Promise<void> {
  const ctx = context(options);
  const conn = await reach(ctx);
  const opened: BrokerConnection[] = [conn];
  try {
    checkShareApis(ctx, conn);
    await checkTopics(ctx, conn);
    const coordinators = await findCoordinators(ctx, conn);
    await checkShareGroups(ctx, conn, coordinators, opened);
  } catch (err) {
    // a SASL listener answers ApiVersions, then closes the connection of a client that did not authenticate
    throw (await explainClosedWithoutSasl(err, probeOptions(ctx, conn.host, conn.port))) ?? err;
  } finally {
    await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
  }
}

interface Context {
  readonly o: PreflightOptions;
  readonly log: Logger;
  readonly open: (options: BrokerConnectionOptions) => Promise<BrokerConnection>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

function context(o: PreflightOptions): Context {
  return {
    o,
    log: (o.logger ?? pino({ level: 'silent' })).child({ component: 'preflight' }),
    open: o.openConnection ?? openBrokerConnection,
    sleep: o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    now: o.now ?? Date.now,
  };
}

function probeOptions(ctx: Context, host: string, port: number): ListenerProbeOptions {
  return {
    host,
    port,
    ssl: ctx.o.ssl,
    sasl: ctx.o.sasl,
    open: ctx.open,
    clientId: ctx.o.clientId,
    logger: ctx.log,
    speaksTls: ctx.o.speaksTls,
  };
}

/**
 * What no retry cures, said as what it is: a certificate refused either way, a refused SASL
 * authentication, or a listener that does not speak this client's protocol. Undefined otherwise.
 */
async function fatalConnectFailure(
  ctx: Context,
  err: unknown,
  host: string,
  port: number,
): Promise<Error | undefined> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const facts = {
    clientCertificate: offersClientCertificate(ctx.o.ssl),
    protocol: protocolOf(ctx.o.ssl, ctx.o.sasl),
  };
  return (
    tlsFailure(err, address, facts) ??
    authenticationFailure(err, address) ??
    (await explainConnectFailure(err, probeOptions(ctx, host, port)))
  );
}

/** Opens a connection to a broker the cluster named (a coordinator), with the check's TLS and SASL. */
async function openNamed(
  ctx: Context,
  node: { nodeId: number; host: string; port: number },
): Promise<BrokerConnection> {
  try {
    return await ctx.open({
      host: node.host,
      port: node.port,
      nodeId: node.nodeId,
      clientId: ctx.o.clientId ?? 'sharesink',
      ssl: ctx.o.ssl,
      sasl: ctx.o.sasl,
      logger: ctx.log.child({ broker: `${node.host}:${node.port}` }, { level: 'silent' }),
      connectionTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  } catch (err) {
    throw (await fatalConnectFailure(ctx, err, node.host, node.port)) ?? err;
  }
}

function parseAddress(address: string): { host: string; port: number } {
  const idx = address.lastIndexOf(':');
  return { host: address.slice(0, idx).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(idx + 1)) };
}

async function reach(ctx: Context): Promise<BrokerConnection> {
  const { o } = ctx;
  const deadline = ctx.now() + o.timeoutMs;
  const failures = new Map<string, string>();
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    for (const address of o.brokers) {
      const { host, port } = parseAddress(address.trim());
      const remaining = Math.max(1000, deadline - ctx.now());
      try {
        const conn = await ctx.open({
          host,
          port,
          nodeId: -1,
          clientId: o.clientId ?? 'sharesink',
          ssl: o.ssl,
          sasl: o.sasl,
          // its own warnings would repeat, per attempt, what this check says once
          logger: ctx.log.child({ broker: address }, { level: 'silent' }),
          connectionTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, remaining),
          requestTimeoutMs: Math.min(30_000, Math.max(remaining, 5000)),
        });
        if (attempt > 1)
          ctx.log.info({ brokers: o.brokers, attempt }, `reached the Kafka cluster at ${address}`);
        return conn;
      } catch (err) {
        // a certificate, a refused SASL authentication or a listener of another protocol is not cured
        // by waiting either, and is no unreachable broker: say what it is
        const fatal = await fatalConnectFailure(ctx, err, host, port);
        if (fatal !== undefined) throw fatal;
        // anything else the broker answered is not cured by waiting
        if (!(err instanceof KafkaConnectionError) || err.code !== 'SHARESINK_KAFKA_CONNECTION') throw err;
        failures.set(address.trim(), socketError(err, address.trim()));
      }
    }
    const left = deadline - ctx.now();
    if (left <= 0) throw new KafkaUnreachableError(failures, o.timeoutMs, attempt);
    if (attempt === 1) {
      const { where, why } = describeAttempts(failures);
      const message = `cannot reach the Kafka cluster at ${where} (bootstrap.servers): ${why}; retrying for up to ${formatDuration(o.timeoutMs)} (bootstrap.timeout.ms)`;
      if (o.onWaiting) o.onWaiting(message);
      else ctx.log.warn({ brokers: o.brokers }, message);
    }
    await ctx.sleep(Math.min(backoff, left));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

function shareTargets(ctx: Context): PreflightTarget[] {
  return ctx.o.targets.filter((t) => t.mode === 'share');
}

function checkShareApis(ctx: Context, conn: BrokerConnection): void {
  const share = shareTargets(ctx);
  if (share.length === 0) return;
  const missing = [ShareGroupHeartbeat, ShareFetch].filter(
    (api) => highestCommonVersion([api.minVersion, api.maxVersion], conn.versions(api.apiKey)) === undefined,
  );
  if (missing.length === 0) return;
  throw new ShareGroupsUnavailableError({
    reason: 'no-share-apis',
    broker: conn.address,
    connectors: share.map((t) => t.name),
    detail: missing.map((api) => api.name).join(' or '),
  });
}

async function checkTopics(ctx: Context, conn: BrokerConnection): Promise<void> {
  const names = [...new Set(ctx.o.targets.flatMap((t) => t.topics))];
  if (names.length === 0) return;
  let topics;
  try {
    topics = (await conn.call(Metadata, metadataForTopicNames(names))).topics;
  } catch (err) {
    // a broker too old for our Metadata versions: the classic client speaks its own; nothing to check here
    if (err instanceof UnsupportedVersionError) return;
    throw err;
  }
  const readers = (topic: string) => ctx.o.targets.filter((t) => t.topics.includes(topic)).map((t) => t.name);
  const denied = topics.find((t) => t.errorCode === KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED);
  if (denied?.name != null)
    throw new KafkaAuthorizationError({
      kafkaCode: denied.errorCode,
      kafkaName: kafkaErrorName(denied.errorCode),
      resourceType: 'topic',
      resourceName: denied.name,
      usedBy: `read by ${readers(denied.name).join(', ')}`,
      principal: ctx.o.principal,
    });
  const missing = topics
    .filter((t) => t.errorCode === KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION && t.name !== null)
    .map((t) => t.name!);
  if (missing.length === 0) return;
  const by = [...new Set(missing.flatMap(readers))];
  const modes = new Set(ctx.o.targets.filter((t) => by.includes(t.name)).map((t) => t.mode));
  throw new UnknownTopicError(missing, {
    readBy: by.join(', '),
    mode: [...modes].some((m) => m !== 'share') ? 'classic' : 'share',
  });
}

interface CoordinatorNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/** The coordinator of each target's group; groups whose coordinator stays unavailable are left out. */
async function findCoordinators(ctx: Context, conn: BrokerConnection): Promise<Map<string, CoordinatorNode>> {
  const found = new Map<string, CoordinatorNode>();
  let pending = [...new Set(ctx.o.targets.map((t) => t.groupId))];
  if (pending.length === 0) return found;
  const deadline = ctx.now() + COORDINATOR_WAIT_MS;
  let backoff = FIRST_BACKOFF_MS;
  while (pending.length > 0) {
    let res;
    try {
      res = await conn.call(FindCoordinator, {
        keyType: CoordinatorKeyType.GROUP,
        coordinatorKeys: pending,
      });
    } catch (err) {
      if (err instanceof UnsupportedVersionError) return found;
      throw err;
    }
    const retry: string[] = [];
    for (const c of res.coordinators) {
      if (c.errorCode === 0) found.set(c.key, { nodeId: c.nodeId, host: c.host, port: c.port });
      else if (c.errorCode === KafkaErrorCode.GROUP_AUTHORIZATION_FAILED)
        throw new KafkaAuthorizationError({
          kafkaCode: c.errorCode,
          kafkaName: kafkaErrorName(c.errorCode),
          resourceType: 'group',
          resourceName: c.key,
          usedBy: `the group of ${targetsOfGroup(ctx, c.key)}`,
          principal: ctx.o.principal,
          brokerMessage: c.errorMessage,
        });
      else retry.push(c.key);
    }
    pending = retry;
    if (pending.length === 0 || ctx.now() >= deadline) break;
    await ctx.sleep(backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
  if (pending.length > 0)
    ctx.log.debug({ groups: pending }, 'group coordinator not available yet; the tasks will keep looking');
  return found;
}

function targetsOfGroup(ctx: Context, groupId: string): string {
  return ctx.o.targets
    .filter((t) => t.groupId === groupId)
    .map((t) => t.name)
    .join(', ');
}

/**
 * ShareGroupDescribe at each share group's coordinator: UNSUPPORTED_VERSION means share groups are off
 * (the request is answered per group even then), GROUP_AUTHORIZATION_FAILED that the principal may not
 * use the group. NOT_COORDINATOR and the like are for the runtime.
 */
async function checkShareGroups(
  ctx: Context,
  bootstrap: BrokerConnection,
  coordinators: ReadonlyMap<string, CoordinatorNode>,
  opened: BrokerConnection[],
): Promise<void> {
  const share = shareTargets(ctx);
  const byNode = new Map<string, { node: CoordinatorNode; groups: string[] }>();
  for (const t of share) {
    const node = coordinators.get(t.groupId);
    if (node === undefined) continue;
    const key = `${node.host}:${node.port}`;
    const entry = byNode.get(key) ?? { node, groups: [] };
    if (!entry.groups.includes(t.groupId)) entry.groups.push(t.groupId);
    byNode.set(key, entry);
  }
  for (const [address, { node, groups }] of byNode) {
    let conn = bootstrap;
    if (address !== bootstrap.address) {
      // the coordinator is another broker (or the same one by another name): same TLS and SASL
      conn = await openNamed(ctx, node);
      opened.push(conn);
    }
    const res = await conn.call(ShareGroupDescribe, { groupIds: groups, includeAuthorizedOperations: false });
    for (const g of res.groups) {
      if (g.errorCode === KafkaErrorCode.UNSUPPORTED_VERSION)
        throw new ShareGroupsUnavailableError({
          reason: 'share-version-0',
          broker: conn.address,
          connectors: share.map((t) => t.name),
        });
      if (g.errorCode === KafkaErrorCode.GROUP_AUTHORIZATION_FAILED)
        throw new KafkaAuthorizationError({
          kafkaCode: g.errorCode,
          kafkaName: kafkaErrorName(g.errorCode),
          resourceType: 'group',
          resourceName: g.groupId,
          usedBy: `the share group of ${targetsOfGroup(ctx, g.groupId)}`,
          principal: ctx.o.principal,
          brokerMessage: g.errorMessage,
        });
    }
  }
}
