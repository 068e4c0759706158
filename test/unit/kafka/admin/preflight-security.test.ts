// The start-up check against a secured cluster, as operators get it wrong: a client and a listener that
// disagree on TLS or SASL fail at once with what to set (not 30 s of "cannot reach the cluster" and a
// bare "Closed connection"), and a coordinator on another broker is reached with the same TLS and SASL.
import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import path from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaslRequiredError } from '../../../../src/kafka/errors/auth-errors.js';
import type { BrokerConnection, BrokerConnectionOptions } from '../../../../src/kafka/connection.js';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import { checkKafkaCluster, type PreflightTarget } from '../../../../src/kafka/admin/preflight.js';
import type { ApiDefinition } from '../../../../src/kafka/protocol/api.js';
import { speaksTls } from '../../../../src/kafka/security/listener-probe.js';
import { KafkaTlsError } from '../../../../src/kafka/errors/tls-errors.js';

const share: PreflightTarget = {
  name: 'connector s1',
  mode: 'share',
  groupId: 'connect-s1',
  topics: ['orders'],
};
const classic: PreflightTarget = {
  name: 'connector c1',
  mode: 'classic',
  groupId: 'connect-c1',
  topics: ['orders'],
};

/** A broker connection that answers what the check asks; `closeOn` fails that API as a closed socket does. */
function connection(
  o: BrokerConnectionOptions,
  broker: { coordinator?: { host: string; port: number }; closeOn?: string; saslMechanisms?: string[] } = {},
): BrokerConnection {
  const address = `${o.host}:${o.port}`;
  const ranges = new Map([3, 10, 17, 18, 76, 77, 78, 79].map((k) => [k, { min: 0, max: 20 }]));
  return {
    nodeId: o.nodeId,
    host: o.host,
    port: o.port,
    address,
    connected: true,
    apiVersions: { errorCode: 0, apiKeys: [], finalizedFeatures: [] } as never,
    versions: (key: number) => ranges.get(key),
    finalizedFeature: () => 2,
    pickVersion: () => 1,
    send: () => Promise.reject(new Error('not used')),
    async call<Req, Res>(api: ApiDefinition<Req, Res>, request: Req): Promise<Res> {
      const req = request as Record<string, unknown>;
      if (api.name === broker.closeOn)
        throw new KafkaConnectionError(address, 'Closed connection', {
          cause: Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' }),
        });
      switch (api.name) {
        case 'Metadata':
          return {
            topics: (req['topics'] as Array<{ name: string }>).map((t) => ({ name: t.name, errorCode: 0 })),
          } as Res;
        case 'FindCoordinator': {
          const at = broker.coordinator ?? { host: o.host, port: o.port };
          return {
            coordinators: (req['coordinatorKeys'] as string[]).map((key) => ({
              key,
              nodeId: 2,
              ...at,
              errorCode: 0,
              errorMessage: null,
            })),
          } as Res;
        }
        case 'ShareGroupDescribe':
          return {
            groups: (req['groupIds'] as string[]).map((groupId) => ({
              groupId,
              errorCode: 69,
              errorMessage: null,
            })),
          } as Res;
        case 'SaslHandshake':
          return (
            broker.saslMechanisms === undefined
              ? { errorCode: 34, mechanisms: [] }
              : { errorCode: 0, mechanisms: broker.saslMechanisms }
          ) as Res;
        default:
          throw new Error(`unexpected ${api.name}`);
      }
    },
    onClose: () => () => undefined,
    close: async () => undefined,
  };
}

/** What kafkajs throws when a socket fails: a KafkaJSConnectionError with Node's code. */
function socketFailure(address: string, message: string, code?: string): KafkaConnectionError {
  const inner = Object.assign(new Error(`Connection error: ${message}`), {
    name: 'KafkaJSConnectionError',
    code,
  });
  return new KafkaConnectionError(address, inner.message, { cause: inner });
}

function closed(address: string): KafkaConnectionError {
  return new KafkaConnectionError(address, 'Closed connection', {
    cause: Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' }),
  });
}

const noWaiting = () => expect.fail('a protocol mismatch is no unreachable broker: it must not be retried');

describe('a client and a listener that disagree on security.protocol', () => {
  it('TLS client, plaintext listener: the handshake is cut short, a plaintext ApiVersions answers → not-tls, at once', async () => {
    const opened: BrokerConnectionOptions[] = [];
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9092'],
      targets: [classic],
      timeoutMs: 30_000,
      ssl: { ca: ['x'] },
      onWaiting: noWaiting,
      openConnection: async (o) => {
        opened.push(o);
        if (o.ssl !== undefined)
          throw socketFailure(
            '127.0.0.1:9092',
            'Client network socket disconnected before secure TLS connection was established',
            'ECONNRESET',
          );
        return connection(o);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KafkaTlsError);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_TLS', reason: 'not-tls' });
    expect((err as Error).message).toBe(
      'TLS handshake with 127.0.0.1:9092 failed (the listener answered a plaintext Kafka request): the listener does not speak TLS. Check the port in bootstrap.servers and security.protocol: SSL and SASL_SSL are for TLS listeners, PLAINTEXT and SASL_PLAINTEXT for the others',
    );
    expect(opened.map((o) => o.ssl === undefined)).toEqual([false, true]);
  });

  it('plaintext (SASL_PLAINTEXT) client, TLS listener: the connection is closed, a ClientHello is answered → tls-listener', async () => {
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9094'],
      targets: [share],
      timeoutMs: 30_000,
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
      onWaiting: noWaiting,
      openConnection: () => Promise.reject(closed('127.0.0.1:9094')),
      speaksTls: async () => true,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_TLS', reason: 'tls-listener' });
    expect((err as Error).message).toBe(
      "the listener at 127.0.0.1:9094 speaks TLS and this client does not (security.protocol=SASL_PLAINTEXT): it closed the connection at the first plaintext request. Set security.protocol=SASL_SSL and trust the broker's CA (ssl.truststore.location, PEM or PKCS12), or point bootstrap.servers at the listener meant for SASL_PLAINTEXT",
    );
  });

  it('a closed connection from a listener that is not TLS either is still retried as unreachable', async () => {
    let t = 0;
    const waiting: string[] = [];
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9092'],
      targets: [classic],
      timeoutMs: 5000,
      onWaiting: (m) => waiting.push(m),
      openConnection: () => Promise.reject(closed('127.0.0.1:9092')),
      speaksTls: async () => false,
      now: () => t,
      sleep: async (ms) => void (t += ms),
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_UNREACHABLE' });
    expect(waiting).toHaveLength(1);
  });

  it('SSL client without SASL, SASL_SSL listener: ApiVersions answers, the next request is closed → which mechanisms it takes', async () => {
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9094'],
      targets: [share],
      timeoutMs: 30_000,
      ssl: { ca: ['x'] },
      onWaiting: noWaiting,
      openConnection: async (o) =>
        connection(o, { closeOn: 'Metadata', saslMechanisms: ['SCRAM-SHA-512', 'PLAIN'] }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SaslRequiredError);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_SASL', mechanisms: ['SCRAM-SHA-512', 'PLAIN'] });
    expect((err as Error).message).toBe(
      'the listener at 127.0.0.1:9094 requires SASL authentication (it enables SCRAM-SHA-512, PLAIN), and security.protocol=SSL does not authenticate: the broker closed the connection. Set security.protocol=SASL_SSL with sasl.mechanism (one the listener enables) and sasl.jaas.config, or point bootstrap.servers at the listener meant for SSL',
    );
  });

  it('a closed connection on a listener without SASL stays what it was', async () => {
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9092'],
      targets: [share],
      timeoutMs: 30_000,
      openConnection: async (o) => connection(o, { closeOn: 'Metadata' }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KafkaConnectionError);
    expect((err as Error).message).toBe('127.0.0.1:9092: Closed connection');
  });

  it('mTLS listener, no client certificate: says this client has none', async () => {
    const err = await checkKafkaCluster({
      brokers: ['127.0.0.1:9095'],
      targets: [classic],
      timeoutMs: 30_000,
      ssl: { ca: ['x'] },
      openConnection: () =>
        Promise.reject(
          socketFailure(
            '127.0.0.1:9095',
            'x:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:y',
            'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
          ),
        ),
    }).then(
      () => expect.fail('it resolved'),
      (e: unknown) => e as Error,
    );
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_TLS', reason: 'client-certificate-refused' });
    expect(err.message).toMatch(
      /^TLS handshake with 127\.0\.0\.1:9095 failed \(sslv3 alert bad certificate\): the broker wants a client certificate \(mTLS\) and this client has none\. Give one signed by a CA the broker trusts: ssl\.keystore\.location .*; or, if this is not the listener meant for this client, check the port in bootstrap\.servers$/,
    );
  });
});

describe('a share group coordinator on another broker', () => {
  it('is reached with the TLS and SASL of the bootstrap connection', async () => {
    const opened: BrokerConnectionOptions[] = [];
    const ssl = { ca: ['x'] };
    const sasl = { mechanism: 'scram-sha-512' as const, username: 'u', password: 'p' };
    await checkKafkaCluster({
      brokers: ['kafka-1:9094'],
      targets: [share],
      timeoutMs: 30_000,
      ssl,
      sasl,
      openConnection: async (o) => {
        opened.push(o);
        return connection(o, { coordinator: { host: 'kafka-2', port: 9094 } });
      },
    });
    expect(opened.map((o) => [`${o.host}:${o.port}`, o.ssl, o.sasl])).toEqual([
      ['kafka-1:9094', ssl, sasl],
      ['kafka-2:9094', ssl, sasl],
    ]);
  });

  it('a refused certificate there is said as TLS, naming that broker', async () => {
    const err = await checkKafkaCluster({
      brokers: ['kafka-1:9094'],
      targets: [share],
      timeoutMs: 30_000,
      ssl: { ca: ['x'] },
      openConnection: async (o) => {
        if (o.host === 'kafka-2')
          throw socketFailure(
            'kafka-2:9094',
            "Hostname/IP does not match certificate's altnames",
            'ERR_TLS_CERT_ALTNAME_INVALID',
          );
        return connection(o, { coordinator: { host: 'kafka-2', port: 9094 } });
      },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'SHARESINK_KAFKA_TLS',
      reason: 'hostname-mismatch',
      broker: 'kafka-2:9094',
    });
  });
});

describe('speaksTls: one ClientHello', () => {
  const TLS = new URL('../../../fixtures/tls/', import.meta.url).pathname;
  let tls: Server;
  let plain: NetServer;
  const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
  beforeAll(async () => {
    tls = createServer({
      pfx: readFileSync(path.join(TLS, 'broker.p12')),
      passphrase: 'changeit',
      requestCert: true,
      rejectUnauthorized: true,
      ca: readFileSync(path.join(TLS, 'ca.pem')),
    });
    tls.on('tlsClientError', () => undefined);
    // a Kafka plaintext listener reads a ClientHello as a huge request size and closes the connection
    plain = createNetServer((s) => s.once('data', () => s.destroy()));
    await Promise.all([
      new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([
      new Promise((resolve) => tls.close(resolve)),
      new Promise((resolve) => plain.close(resolve)),
    ]);
  });

  it('true for a TLS listener, even one that wants a client certificate', async () => {
    expect(await speaksTls('127.0.0.1', port(tls), 5000)).toBe(true);
  });

  it('false for a listener that is not TLS, undefined where nothing listens', async () => {
    expect(await speaksTls('127.0.0.1', port(plain), 5000)).toBe(false);
    const closedPort = port(plain);
    await new Promise((resolve) => plain.close(resolve));
    expect(await speaksTls('127.0.0.1', closedPort, 5000)).toBeUndefined();
    plain = createNetServer();
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  });
});
