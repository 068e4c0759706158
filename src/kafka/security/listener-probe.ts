/**
 * A client and a listener that disagree on `security.protocol` fail in ways that say nothing: TLS
 * against a plaintext port is a handshake cut short, plaintext against a TLS port a closed connection,
 * and a client without SASL on a SASL listener gets its connection closed at the first request after
 * ApiVersions. Each is told for sure by one more short connection — a TLS ClientHello, a plaintext
 * ApiVersions, a SaslHandshake — which the start-up check makes only after such a failure, so a healthy
 * start pays nothing and a broker that is merely down is still retried for `bootstrap.timeout.ms`.
 */
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { SaslRequiredError } from '../errors/auth-errors.js';
import type { BrokerConnection, BrokerConnectionOptions } from '../connection.js';
import { KafkaConnectionError, KafkaErrorCode } from '../errors/kafka-errors.js';
import type { SaslConfig, SslConfig } from '../kafkajs/internals.js';
import { SaslHandshake } from '../protocol/messages/sasl-handshake.js';
import { KafkaTlsError } from '../errors/tls-errors.js';
import type { SecurityProtocol } from './types.js';

const PROBE_TIMEOUT_MS = 5000;

export interface ListenerProbeOptions {
  readonly host: string;
  readonly port: number;
  /** The client's TLS and SASL options, as the failed connection had them. */
  readonly ssl?: SslConfig | undefined;
  readonly sasl?: SaslConfig | undefined;
  readonly open: (options: BrokerConnectionOptions) => Promise<BrokerConnection>;
  readonly clientId?: string | undefined;
  readonly logger?: Logger | undefined;
  /** Longest wait of one probe; default 5 s. */
  readonly timeoutMs?: number | undefined;
  /** Replaces {@link speaksTls} (tests). */
  readonly speaksTls?:
    ((host: string, port: number, timeoutMs: number) => Promise<boolean | undefined>) | undefined;
}

/** The `security.protocol` a client with these kafkajs options speaks. */
export function protocolOf(ssl: SslConfig | undefined, sasl: SaslConfig | undefined): SecurityProtocol {
  const tls = ssl !== undefined && ssl !== false;
  if (sasl !== undefined) return tls ? 'SASL_SSL' : 'SASL_PLAINTEXT';
  return tls ? 'SSL' : 'PLAINTEXT';
}

/** True when the kafkajs TLS options offer a client certificate (mTLS). */
export function offersClientCertificate(ssl: SslConfig | undefined): boolean {
  return typeof ssl === 'object' && (ssl.cert !== undefined || ssl.pfx !== undefined);
}

/** TLS alerts and handshake errors a TLS server causes; the others say the peer is not TLS. */
const NOT_TLS_CODES =
  /^ERR_SSL_(WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|RECORD_LAYER_FAILURE)$/;

/**
 * Does `host:port` answer a TLS ClientHello? true: a TLS server (even one that then refused this
 * client); false: something that is not; undefined: no answer in time, or nothing listens.
 */
export function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    // only the question "is this TLS" is asked: nothing is sent after the handshake
    const socket = connect({
      host,
      port,
      rejectUnauthorized: false,
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    const done = (value: boolean | undefined) => {
      clearTimeout(timer);
      socket.removeAllListeners('secureConnect');
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => done(true));
    socket.once('error', (err: Error & { code?: unknown }) => {
      const code = typeof err.code === 'string' ? err.code : '';
      if (code.startsWith('ERR_SSL_')) done(!NOT_TLS_CODES.test(code));
      else if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') done(undefined);
      else done(false);
    });
  });
}

function connectionOptions(o: ListenerProbeOptions, ssl: SslConfig | undefined): BrokerConnectionOptions {
  const timeoutMs = o.timeoutMs ?? PROBE_TIMEOUT_MS;
  return {
    host: o.host,
    port: o.port,
    nodeId: -1,
    clientId: o.clientId ?? 'sharesink',
    ssl,
    logger: (o.logger ?? pino({ level: 'silent' })).child(
      { component: 'listener-probe' },
      { level: 'silent' },
    ),
    connectionTimeoutMs: timeoutMs,
    requestTimeoutMs: timeoutMs,
  };
}

/** Does `host:port` answer Kafka's ApiVersions without TLS? */
async function answersPlaintext(o: ListenerProbeOptions): Promise<boolean> {
  try {
    const conn = await o.open(connectionOptions(o, undefined));
    await conn.close().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/** The SASL mechanisms the listener enables; undefined when it takes no SASL (or cannot be asked). */
export async function saslMechanismsOf(o: ListenerProbeOptions): Promise<string[] | undefined> {
  let conn: BrokerConnection;
  try {
    conn = await o.open(connectionOptions(o, o.ssl));
  } catch {
    return undefined;
  }
  try {
    if (conn.versions(SaslHandshake.apiKey) === undefined) return undefined;
    const res = await conn.call(SaslHandshake, { mechanism: 'PLAIN' });
    return res.errorCode === 0 || res.errorCode === KafkaErrorCode.UNSUPPORTED_SASL_MECHANISM
      ? res.mechanisms
      : undefined;
  } catch {
    return undefined;
  } finally {
    await conn.close().catch(() => undefined);
  }
}

function messages(err: unknown): string {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    out.push(`${e.message}${typeof code === 'string' ? ` [${code}]` : ''}`);
  }
  return out.join(' / ');
}

/** A TLS handshake the peer cut short; a plaintext Kafka listener does that to a ClientHello. */
const HANDSHAKE_CUT = /socket disconnected before secure TLS connection|\[ECONNRESET\]|Closed connection/i;
/** A connection closed before any answer; a TLS listener does that to a plaintext request. */
const CLOSED_EARLY = /Closed connection|\[ECONNRESET\]|socket hang up|\[EPIPE\]/i;

/**
 * Connecting failed with `err` before the broker answered anything: when the listener and the client
 * disagree on TLS, the error that says so (code `SHARESINK_KAFKA_TLS`); otherwise undefined.
 */
export async function explainConnectFailure(
  err: unknown,
  o: ListenerProbeOptions,
): Promise<KafkaTlsError | undefined> {
  if (!(err instanceof KafkaConnectionError) || err.code !== 'SHARESINK_KAFKA_CONNECTION') return undefined;
  const text = messages(err);
  const broker = `${o.host}:${o.port}`;
  const protocol = protocolOf(o.ssl, o.sasl);
  const tlsClient = protocol === 'SSL' || protocol === 'SASL_SSL';
  if (tlsClient && HANDSHAKE_CUT.test(text) && (await answersPlaintext(o)))
    return new KafkaTlsError({
      broker,
      reason: 'not-tls',
      detail: 'the listener answered a plaintext Kafka request',
      cause: err,
      facts: { protocol },
    });
  if (!tlsClient && CLOSED_EARLY.test(text)) {
    const probe = o.speaksTls ?? speaksTls;
    if ((await probe(o.host, o.port, o.timeoutMs ?? PROBE_TIMEOUT_MS)) === true)
      return new KafkaTlsError({
        broker,
        reason: 'tls-listener',
        detail: 'it closed the connection at the first plaintext request',
        cause: err,
        facts: { protocol },
      });
  }
  return undefined;
}

/**
 * A connection without SASL was closed under a request after ApiVersions: when the listener takes SASL,
 * the error that says so (code `SHARESINK_KAFKA_SASL`, with the mechanisms it enables); otherwise
 * undefined.
 */
export async function explainClosedWithoutSasl(
  err: unknown,
  o: ListenerProbeOptions,
): Promise<SaslRequiredError | undefined> {
  if (o.sasl !== undefined) return undefined;
  if (!(err instanceof KafkaConnectionError) || err.code !== 'SHARESINK_KAFKA_CONNECTION') return undefined;
  if (!CLOSED_EARLY.test(messages(err))) return undefined;
  const mechanisms = await saslMechanismsOf(o);
  if (mechanisms === undefined) return undefined;
  return new SaslRequiredError({
    broker: `${o.host}:${o.port}`,
    mechanisms,
    protocol: protocolOf(o.ssl, undefined),
    cause: err,
  });
}
