/**
 * One connection to one broker, with its negotiated API versions.
 *
 * @example
 * ```ts
 * const conn = await openBrokerConnection({ host: '127.0.0.1', port: 9092, nodeId: 1, clientId: 'x', logger });
 * const res = await conn.call(ShareGroupHeartbeat, { groupId, memberId, memberEpoch: 0, rackId: null,
 *   subscribedTopicNames: ['orders'] });
 * ```
 */
import type { Logger } from 'pino';
import { KafkaError, UnsupportedVersionError } from './errors/kafka-errors.js';
import {
  authenticateKafkajsConnection,
  closeKafkajsConnection,
  isKafkajsConnected,
  onKafkajsSocketClose,
  openKafkajsConnection,
  sendOnKafkajsConnection,
  type KafkajsHandle,
  type SaslConfig,
  type SslConfig,
} from './kafkajs/internals.js';
import {
  buildRequest,
  highestCommonVersion,
  type ApiDefinition,
  type ApiRequest,
  type VersionRange,
} from './protocol/api.js';
import { ApiVersions, type ApiVersionsResponse } from './protocol/messages/api-versions.js';

/** Per-request options. */
export interface SendOptions {
  /**
   * Request timeout in ms, overriding the connection default. Long polls (ShareFetch with MaxWaitMs) must
   * pass at least MaxWaitMs plus a margin.
   */
  timeoutMs?: number;
}

/** The API surface the share consumer uses: one broker, versions negotiated, requests in, responses out. */
export interface BrokerConnection {
  /** Broker id; -1 for a bootstrap connection whose id is not known yet. */
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly address: string;
  /** The ApiVersions response of this broker (API ranges and finalized features). */
  readonly apiVersions: ApiVersionsResponse;
  /** True until the socket closes or {@link close} is called. */
  readonly connected: boolean;

  /** The broker's version range for `apiKey`, or undefined when it does not support the API. */
  versions(apiKey: number): VersionRange | undefined;
  /** Finalized level of a cluster feature (e.g. `'share.version'`), or undefined when not finalized. */
  finalizedFeature(name: string): number | undefined;
  /** The highest version of `api` both sides support; throws {@link UnsupportedVersionError} if none. */
  pickVersion(
    api: Pick<ApiDefinition<unknown, unknown>, 'apiKey' | 'name' | 'minVersion' | 'maxVersion'>,
  ): number;

  /**
   * Sends an encoded request (see `buildRequest`) and decodes its response. Concurrent sends are pipelined on
   * the one socket and matched by correlation id.
   * @throws KafkaConnectionError / KafkaRequestTimeoutError on transport failure, KafkaProtocolError when the
   * response cannot be decoded. Kafka error codes inside the response are NOT thrown: they are data.
   */
  send<T>(request: ApiRequest<T>, options?: SendOptions): Promise<T>;
  /** `pickVersion` (unless `options.version` is given) + `buildRequest` + `send`. */
  call<Req, Res>(
    api: ApiDefinition<Req, Res>,
    request: Req,
    options?: SendOptions & { version?: number },
  ): Promise<Res>;

  /** Calls `listener` once when the connection closes, for whatever reason. Returns an unsubscribe function. */
  onClose(listener: () => void): () => void;
  /** Closes the socket after in-flight requests complete or time out. Idempotent. */
  close(): Promise<void>;
}

export interface BrokerConnectionOptions {
  host: string;
  port: number;
  /** -1 for a bootstrap address. */
  nodeId: number;
  clientId: string;
  logger: Logger;
  ssl?: SslConfig | undefined;
  sasl?: SaslConfig | undefined;
  /** Default 10 000. */
  connectionTimeoutMs?: number | undefined;
  /** Default 30 000. */
  requestTimeoutMs?: number | undefined;
  /** Sent in ApiVersions v3+ (`ClientSoftwareName`). */
  softwareName?: string | undefined;
  softwareVersion?: string | undefined;
}

class KafkajsBrokerConnection implements BrokerConnection {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly apiVersions: ApiVersionsResponse;
  private readonly ranges: ReadonlyMap<number, VersionRange>;
  private readonly handle: KafkajsHandle;
  private readonly listeners = new Set<() => void>();
  private closed = false;

  constructor(
    handle: KafkajsHandle,
    opts: BrokerConnectionOptions,
    apiVersions: ApiVersionsResponse,
    ranges: ReadonlyMap<number, VersionRange>,
  ) {
    this.handle = handle;
    this.nodeId = opts.nodeId;
    this.host = opts.host;
    this.port = opts.port;
    this.address = handle.address;
    this.apiVersions = apiVersions;
    this.ranges = ranges;
    onKafkajsSocketClose(handle, () => this.markClosed());
  }

  get connected(): boolean {
    return !this.closed && isKafkajsConnected(this.handle);
  }

  versions(apiKey: number): VersionRange | undefined {
    return this.ranges.get(apiKey);
  }

  finalizedFeature(name: string): number | undefined {
    return this.apiVersions.finalizedFeatures.find((f) => f.name === name)?.maxVersionLevel;
  }

  pickVersion(
    api: Pick<ApiDefinition<unknown, unknown>, 'apiKey' | 'name' | 'minVersion' | 'maxVersion'>,
  ): number {
    const theirs = this.ranges.get(api.apiKey);
    const v = highestCommonVersion([api.minVersion, api.maxVersion], theirs);
    if (v === undefined) {
      throw new UnsupportedVersionError({
        apiKey: api.apiKey,
        apiName: api.name,
        ours: [api.minVersion, api.maxVersion],
        broker: theirs,
        nodeId: this.nodeId,
        address: this.address,
        shareVersion: this.finalizedFeature('share.version'),
      });
    }
    return v;
  }

  send<T>(request: ApiRequest<T>, options?: SendOptions): Promise<T> {
    return sendOnKafkajsConnection(this.handle, request, options?.timeoutMs);
  }

  call<Req, Res>(
    api: ApiDefinition<Req, Res>,
    request: Req,
    options?: SendOptions & { version?: number },
  ): Promise<Res> {
    const version = options?.version ?? this.pickVersion(api);
    return this.send(buildRequest(api, version, request), options);
  }

  onClose(listener: () => void): () => void {
    if (this.closed) {
      queueMicrotask(listener);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of this.listeners) l();
    this.listeners.clear();
  }

  async close(): Promise<void> {
    await closeKafkajsConnection(this.handle);
    this.markClosed();
  }
}

/**
 * Connects, negotiates ApiVersions (highest version both sides know, falling back as the broker asks) and
 * authenticates (SASL) when configured.
 * @throws KafkaConnectionError when the broker cannot be reached or authentication fails.
 */
export async function openBrokerConnection(options: BrokerConnectionOptions): Promise<BrokerConnection> {
  // bound here, where they are known, so that neither the caller nor a log call repeats them
  const logger = options.logger.child({ broker: `${options.host}:${options.port}`, nodeId: options.nodeId });
  const handle = await openKafkajsConnection({
    host: options.host,
    port: options.port,
    clientId: options.clientId,
    logger,
    ssl: options.ssl,
    sasl: options.sasl,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  try {
    const request = {
      clientSoftwareName: options.softwareName ?? 'sharesink',
      clientSoftwareVersion: options.softwareVersion ?? '0.0.0',
    };
    let version = ApiVersions.maxVersion;
    let res = await sendOnKafkajsConnection(handle, buildRequest(ApiVersions, version, request));
    if (res.errorCode === 35) {
      // UNSUPPORTED_VERSION: the broker answered with a v0 body listing what it supports.
      const theirs = res.apiKeys.find((k) => k.apiKey === ApiVersions.apiKey);
      version = Math.min(theirs?.maxVersion ?? 0, ApiVersions.maxVersion);
      res = await sendOnKafkajsConnection(handle, buildRequest(ApiVersions, version, request));
    }
    if (res.errorCode !== 0)
      throw new KafkaError(res.errorCode, { api: 'ApiVersions', subject: handle.address });
    const ranges = new Map<number, VersionRange>();
    for (const k of res.apiKeys) ranges.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
    await authenticateKafkajsConnection(handle, ranges);
    logger.debug({ apiVersionsVersion: version, apis: ranges.size }, 'connected');
    return new KafkajsBrokerConnection(handle, options, res, ranges);
  } catch (err) {
    await closeKafkajsConnection(handle);
    throw err;
  }
}
