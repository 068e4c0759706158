/**
 * The ONLY module that reaches into kafkajs internals. kafkajs is pinned at exactly 2.2.4: the internal
 * paths and shapes used here are checked against that version and nothing else.
 *
 * What we take from kafkajs: its broker `Connection` (`kafkajs/src/network/connection.js`) — socket and
 * TLS setup, int32 framing, correlation ids, the in-flight request queue with request timeouts, and SASL
 * (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER, AWS, custom) including re-authentication. kafkajs writes request
 * header v1 (api key, version, correlation id, int16 client id) and strips the correlation id of the
 * response; we add the rest of the flexible headers ourselves: one 0x00 byte (empty tagged section) at the
 * start of the body turns header v1 into header v2, and the response body of a flexible API starts with the
 * response header's tagged section, which {@link sendOnKafkajsConnection} skips.
 *
 * What we do not take: kafkajs's protocol requests and its RecordBatch decoder (see docs/adr/0001-wire-layer.md).
 *
 * What we mend: its request queue's idle 1 ms timer loop (kafkajs-request-queue.ts, loaded from here and
 * wherever else kafkajs clients are made).
 */
import { createRequire } from 'node:module';
import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import type { KafkaMessage, SASLOptions, Mechanism } from 'kafkajs';
import type { Logger } from 'pino';
import { KafkaConnectionError, KafkaError, KafkaRequestTimeoutError } from '../errors/kafka-errors.js';
import { CompressionType, decompress, lz4, snappy } from '../records/compression.js';
import type { ApiRequest } from '../protocol/api.js';
import { Reader } from '../protocol/reader.js';
import { RepeatedLines } from '../../observability/repeated-lines.js';
import './request-queue.js';

const require = createRequire(import.meta.url);

/** SASL options, passed to kafkajs unchanged (`{ mechanism: 'plain' | 'scram-sha-256' | …, … }`). */
export type SaslConfig = SASLOptions | Mechanism;

/** TLS: `true` for default TLS, or `node:tls` connect options (ca, cert, key, servername, …). */
export type SslConfig = boolean | TlsConnectionOptions;

// ── the slice of kafkajs 2.2.4 internals we use ─────────────────────────────────────────────────────────

interface KafkajsLogger {
  info(message: string, extra?: object): void;
  error(message: string, extra?: object): void;
  warn(message: string, extra?: object): void;
  debug(message: string, extra?: object): void;
  namespace(namespace: string, logLevel?: number): KafkajsLogger;
  setLogLevel(level: number): void;
}

interface KafkajsEncoder {
  writeBuffer(b: Buffer): KafkajsEncoder;
}

interface KafkajsConnection {
  host: string;
  port: number;
  socket?: NodeJS.EventEmitter;
  connect(): Promise<boolean>;
  disconnect(): Promise<boolean>;
  isConnected(): boolean;
  authenticate(): Promise<void>;
  setVersions(versions: Record<number, { minVersion: number; maxVersion: number }>): void;
  setSupportAuthenticationProtocol(supported: boolean): void;
  send<T>(args: {
    request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<KafkajsEncoder> };
    response: { decode(payload: Buffer): Promise<unknown>; parse(decoded: unknown): Promise<T> };
    requestTimeout?: number | null;
    logResponseError?: boolean;
  }): Promise<T>;
}

type KafkajsConnectionCtor = new (options: {
  host: string;
  port: number;
  logger: KafkajsLogger;
  socketFactory: unknown;
  requestTimeout: number;
  connectionTimeout: number;
  clientId: string;
  ssl: TlsConnectionOptions | boolean | null;
  sasl: SaslConfig | null;
  enforceRequestTimeout: boolean;
  maxInFlightRequests: number | null;
  reauthenticationThreshold?: number;
}) => KafkajsConnection;

const Connection = require('kafkajs/src/network/connection.js') as KafkajsConnectionCtor;
const defaultSocketFactory = require('kafkajs/src/network/socketFactory.js') as () => unknown;
const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => KafkajsEncoder;

// ── logging: kafkajs's logger interface on top of a pino logger ─────────────────────────────────────────

/**
 * A kafkajs logger writing to pino. kafkajs logs connection failures at ERROR; the cluster reconnects on its
 * own, so they become `warn`, and a line about a broker that repeats (every reconnect to a broker that is
 * down) is logged once per 30 s with the count of those left out (`repeatsLeftOut`). kafkajs logs every
 * request and response at DEBUG; those become `trace`, and their `data` / `payload` (whole responses,
 * record bytes) are dropped.
 *
 * A response that carries an error (`Response CreateTopics(key: 19, version: 3)`) is also `trace`: kafkajs
 * throws that error to its caller, and sharesink's caller reports it with what to do, or knows it is the
 * usual answer (TOPIC_ALREADY_EXISTS when two workers create the cluster's topics at once, a rebalance).
 * At `warn` it showed a person "Topic creation errors" on a healthy first start.
 */
/** kafkajs's per-response line, `Response <Api>(key: N, version: N)`. */
const RESPONSE_LINE = /^Response \w+\(key: \d+/;

/** One for the process: a broker that is down repeats the same lines on every connection (repeated-lines.ts). */
const REPEATS = new RepeatedLines();

export function kafkajsLogger(logger: Logger, namespace = 'kafkajs'): KafkajsLogger {
  const child = logger.child({ kafkajs: namespace });
  // kafkajs repeats fields the caller's logger may already bind (`broker` on a broker connection's
  // logger): pino would write both, and a JSON line with a key twice is read differently by each parser
  const bound = Object.keys(child.bindings());
  const strip = (extra: object | undefined): object => {
    if (extra === undefined) return {};
    const { data: _data, payload: _payload, ...rest } = extra as Record<string, unknown>;
    for (const key of bound) delete rest[key];
    return rest;
  };
  const loud = (m: string, e: object | undefined): void => {
    if (RESPONSE_LINE.test(m)) return child.trace(strip(e), m);
    // only a broker's own lines (a reconnect saying the same thing again): other lines keep their
    // details in fields (topic, partition, group), so the same text is not the same event
    const broker = (e as { broker?: unknown } | undefined)?.broker;
    const left = typeof broker === 'string' ? REPEATS.admit(`${broker}\u0000${m}`) : 0;
    if (left === undefined) return;
    child.warn(left > 0 ? { ...strip(e), repeatsLeftOut: left } : strip(e), m);
  };
  return {
    error: loud,
    warn: loud,
    info: (m, e) => child.info(strip(e), m),
    debug: (m, e) => child.trace(strip(e), m),
    namespace: (ns) => kafkajsLogger(logger, ns),
    setLogLevel: () => {},
  };
}

// ── connections ─────────────────────────────────────────────────────────────────────────────────────────

export interface KafkajsConnectionOptions {
  host: string;
  port: number;
  clientId: string;
  logger: Logger;
  ssl?: SslConfig | undefined;
  sasl?: SaslConfig | undefined;
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
  /** null = unlimited. */
  maxInFlightRequests?: number | null | undefined;
}

/** An opaque handle on a kafkajs broker connection. */
export interface KafkajsHandle {
  readonly address: string;
  /** Who SASL authenticates as, for messages (`PLAIN user "alice"`); undefined without SASL. */
  readonly principal?: string | undefined;
  /** @internal */
  readonly conn: KafkajsConnection;
}

/** Opens the TCP/TLS connection (no ApiVersions, no SASL yet). */
export async function openKafkajsConnection(options: KafkajsConnectionOptions): Promise<KafkajsHandle> {
  const address = `${options.host}:${options.port}`;
  const conn = new Connection({
    host: options.host,
    port: options.port,
    logger: kafkajsLogger(options.logger),
    socketFactory: defaultSocketFactory(),
    requestTimeout: options.requestTimeoutMs,
    connectionTimeout: options.connectionTimeoutMs,
    clientId: options.clientId,
    ssl: options.ssl === undefined || options.ssl === false ? null : options.ssl === true ? {} : options.ssl,
    sasl: options.sasl ?? null,
    enforceRequestTimeout: true,
    maxInFlightRequests: options.maxInFlightRequests ?? null,
  });
  try {
    await conn.connect();
  } catch (err) {
    throw translateKafkajsError(address, err);
  }
  return { address, conn, principal: saslPrincipal(options.sasl) };
}

/** `PLAIN user "alice"` from SASL options; the mechanism alone when there is no user name (OAUTHBEARER, AWS). */
export function saslPrincipal(sasl: SaslConfig | undefined): string | undefined {
  if (sasl === undefined) return undefined;
  const mechanism = sasl.mechanism.toUpperCase();
  const username = (sasl as { username?: unknown }).username;
  return typeof username === 'string' && username !== '' ? `${mechanism} user "${username}"` : mechanism;
}

/**
 * Tells kafkajs the broker's API versions (its SASL code picks SaslHandshake / SaslAuthenticate versions
 * from them) and runs SASL authentication when configured.
 */
export async function authenticateKafkajsConnection(
  handle: KafkajsHandle,
  versions: ReadonlyMap<number, { min: number; max: number }>,
): Promise<void> {
  const map: Record<number, { minVersion: number; maxVersion: number }> = {};
  for (const [key, v] of versions) map[key] = { minVersion: v.min, maxVersion: v.max };
  handle.conn.setVersions(map);
  handle.conn.setSupportAuthenticationProtocol(versions.has(36)); // SaslAuthenticate
  try {
    await handle.conn.authenticate();
  } catch (err) {
    throw translateKafkajsError(handle.address, err, handle.principal);
  }
}

export function isKafkajsConnected(handle: KafkajsHandle): boolean {
  return handle.conn.isConnected();
}

/** Calls `listener` once when the socket closes (either side). */
export function onKafkajsSocketClose(handle: KafkajsHandle, listener: () => void): void {
  const socket = handle.conn.socket;
  if (socket === undefined) {
    queueMicrotask(listener);
    return;
  }
  socket.once('close', listener);
}

export async function closeKafkajsConnection(handle: KafkajsHandle): Promise<void> {
  try {
    await handle.conn.disconnect();
  } catch {
    // closing is best effort
  }
}

const EMPTY_TAGS = Buffer.from([0]);

/**
 * Sends one request on a kafkajs connection and decodes the response with `request.decode`.
 * Errors: {@link KafkaConnectionError} / {@link KafkaRequestTimeoutError} for transport failures;
 * whatever `decode` throws (a `KafkaProtocolError`) passes through unchanged.
 */
export async function sendOnKafkajsConnection<T>(
  handle: KafkajsHandle,
  request: ApiRequest<T>,
  timeoutMs?: number,
): Promise<T> {
  try {
    return await handle.conn.send<T>({
      request: {
        apiKey: request.apiKey,
        apiVersion: request.apiVersion,
        apiName: request.apiName,
        encode: async () => {
          const e = new Encoder();
          if (request.flexibleRequestHeader) e.writeBuffer(EMPTY_TAGS);
          return e.writeBuffer(request.body);
        },
      },
      response: {
        decode: async (payload: Buffer) => {
          let body = payload;
          if (request.flexibleResponseHeader) {
            const r = new Reader(payload);
            r.taggedFields();
            body = payload.subarray(r.pos);
          }
          return request.decode(body);
        },
        parse: async (decoded: unknown) => decoded as T,
      },
      requestTimeout: timeoutMs ?? null,
      logResponseError: false,
    });
  } catch (err) {
    throw translateKafkajsError(handle.address, err);
  }
}

/**
 * kafkajs errors → sharesink errors; anything else (our own decode errors) unchanged. `principal` (see
 * {@link saslPrincipal}) is named in SASL failures: the broker's answer does not say who was refused.
 */
export function translateKafkajsError(address: string, err: unknown, principal?: string): unknown {
  if (!(err instanceof Error)) return err;
  switch (err.name) {
    case 'KafkaJSRequestTimeoutError':
      return new KafkaRequestTimeoutError(address, err.message, err);
    case 'KafkaJSConnectionError':
    case 'KafkaJSConnectionClosedError':
      return new KafkaConnectionError(address, err.message, { cause: err });
    case 'KafkaJSSASLAuthenticationError':
      return new KafkaConnectionError(
        address,
        `SASL authentication failed${principal === undefined ? '' : ` for ${principal}`}: ${err.message}`,
        {
          cause: err,
          code: 'SHARESINK_KAFKA_SASL',
        },
      );
    case 'KafkaJSProtocolError': {
      // e.g. SASL_AUTHENTICATION_FAILED from SaslAuthenticate
      const code = (err as Error & { code?: unknown }).code;
      if (typeof code === 'number')
        return new KafkaError(code, {
          api: 'SASL',
          brokerMessage: err.message,
          ...(principal === undefined ? {} : { subject: principal }),
        });
      return new KafkaConnectionError(address, err.message, { cause: err });
    }
    default:
      return err;
  }
}

// ── compression codecs for kafkajs's own consumer / producer (classic mode) ───────────────────────────────

let codecsRegistered = false;

/**
 * Registers snappy, lz4 and zstd in kafkajs's public `CompressionCodecs` registry, backed by the same
 * packages the share path uses (see compression.ts), so a kafkajs consumer (classic mode) can read batches
 * in every codec. zstd is decompression-only: a kafkajs producer asking for zstd fails. Idempotent; does not
 * replace a codec the embedder registered first.
 */
export function registerKafkajsCompressionCodecs(): void {
  if (codecsRegistered) return;
  codecsRegistered = true;
  const kafkajs = require('kafkajs') as {
    CompressionTypes: Record<'Snappy' | 'LZ4' | 'ZSTD', number>;
    CompressionCodecs: Record<number, () => unknown>;
  };
  const { CompressionTypes: T, CompressionCodecs: C } = kafkajs;
  const codec =
    (id: number, compress: (b: Buffer) => Buffer | Promise<Buffer>) =>
    (): { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> } => ({
      compress: async (e) => compress(e.buffer),
      decompress: (b) => decompress(id, b),
    });
  const mine = [
    [T.Snappy, codec(CompressionType.SNAPPY, (b) => snappy().compressSync(b))],
    [T.LZ4, codec(CompressionType.LZ4, (b) => lz4().compressFrameSync(b))],
    [
      T.ZSTD,
      codec(CompressionType.ZSTD, () => {
        throw new TypeError('sharesink provides zstd decompression only; produce with another codec');
      }),
    ],
  ] as const;
  for (const [type, factory] of mine) {
    // kafkajs's defaults for these throw KafkaJSNotImplemented; keep anything the embedder registered.
    const current = C[type];
    const usable = ((): boolean => {
      try {
        current?.();
        return current !== undefined;
      } catch {
        return false;
      }
    })();
    if (!usable) C[type] = factory;
  }
}

/**
 * kafkajs 2.2.4 keeps the batch attributes of a v2 RecordBatch on each decoded message as an untyped
 * `batchContext`; its `timestampType` says whether the timestamp is the broker's (LogAppendTime).
 */
export function messageTimestampType(message: KafkaMessage): 'CreateTime' | 'LogAppendTime' {
  const ctx = (message as { batchContext?: { timestampType?: number } }).batchContext;
  return ctx?.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
}
