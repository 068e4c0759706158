// TLS handshake failures as kafkajs passes them on (a KafkaJSConnectionError carrying Node's code),
// and as real handshakes against a local TLS server produce them: each becomes one KafkaTlsError that
// says which side refused and which setting decides it.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { connect, createServer, type ConnectionOptions, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import { KafkaTlsError, tlsFailure } from '../../../../src/kafka/errors/tls-errors.js';

const TLS = new URL('../../../fixtures/tls/', import.meta.url).pathname;
const read = (name: string) => readFileSync(path.join(TLS, name));

/** What kafkajs throws for a socket error: `Connection error: <message>` with Node's code. */
function kafkajsError(message: string, code?: string): KafkaConnectionError {
  const inner = Object.assign(new Error(`Connection error: ${message}`), {
    name: 'KafkaJSConnectionError',
    code,
  });
  return new KafkaConnectionError('b:9094', inner.message, { cause: inner });
}

describe('tlsFailure', () => {
  it.each([
    [
      'self-signed certificate in certificate chain',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'broker-certificate-untrusted',
    ],
    [
      'unable to verify the first certificate',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'broker-certificate-untrusted',
    ],
    ['certificate has expired', 'CERT_HAS_EXPIRED', 'broker-certificate-untrusted'],
    [
      "Hostname/IP does not match certificate's altnames: IP: 10.0.0.1 is not in the cert's list: 127.0.0.1",
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'hostname-mismatch',
    ],
    [
      '80EC:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/x.c:1601:SSL alert number 42',
      'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
      'client-certificate-refused',
    ],
    [
      '80EC:error:0A000416:SSL routines:ssl3_read_bytes:sslv3 alert certificate unknown:../deps/x.c:1601:SSL alert number 46',
      'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
      'client-certificate-refused',
    ],
    [
      '80EC:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/x.c:355:',
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'not-tls',
    ],
  ])('%s → %s', (message, code, reason) => {
    for (const err of [kafkajsError(message, code), kafkajsError(message)]) {
      const tls = tlsFailure(err, 'b:9094');
      expect(tls).toBeInstanceOf(KafkaTlsError);
      expect(tls!.code).toBe('SHARESINK_KAFKA_TLS');
      expect(tls!.reason).toBe(reason);
      expect(tls!.message).toMatch(/^TLS handshake with b:9094 failed \(/);
      expect(tls!.message).not.toContain('SSL routines');
    }
  });

  it('leaves other connection errors alone', () => {
    expect(
      tlsFailure(kafkajsError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'), 'b:9'),
    ).toBeUndefined();
    expect(tlsFailure(new Error('Connection timeout'), 'b:9')).toBeUndefined();
  });

  it('says what to set', () => {
    expect(
      tlsFailure(
        kafkajsError('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN'),
        'b:9094',
      )!.message,
    ).toBe(
      "TLS handshake with b:9094 failed (self-signed certificate in certificate chain): the client does not trust the broker's certificate. Trust the CA that signed it: ssl.truststore.location (PEM or PKCS12, with ssl.truststore.password) or ssl.truststore.certificates; without them only Node's default CAs are trusted",
    );
    expect(
      tlsFailure(
        kafkajsError(
          'x:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:y',
          'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
        ),
        'b:9095',
      )!.message,
    ).toBe(
      "TLS handshake with b:9095 failed (sslv3 alert bad certificate): the broker refused this client's certificate, or wanted one and got none (mTLS). Give a certificate signed by a CA the broker trusts: ssl.keystore.location (PKCS12 or PEM, with ssl.keystore.password / ssl.key.password) or ssl.keystore.certificate.chain with ssl.keystore.key",
    );
  });
});

describe('real handshakes against a local TLS server', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer({
      pfx: read('broker.p12'),
      passphrase: 'changeit',
      ca: read('ca.pem'),
      requestCert: true,
      rejectUnauthorized: true,
    });
    server.on('secureConnection', (s) => s.end('ok'));
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Connects, reads until the end; the socket error, if any. */
  function handshake(options: ConnectionOptions): Promise<Error | undefined> {
    return new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port, ...options });
      s.on('error', resolve);
      s.on('data', () => undefined);
      s.on('end', () => resolve(undefined));
    });
  }

  it('an untrusted broker and a missing client certificate are told apart', async () => {
    // PEM without the chain: a PKCS12 file's CA certificates would be trusted along with it
    const identity = { cert: read('client.pem'), key: read('client.key') };
    const untrusted = await handshake({ ca: read('rogue-ca.pem'), ...identity });
    expect(tlsFailure(untrusted, `127.0.0.1:${port}`)?.reason).toBe('broker-certificate-untrusted');
    const none = await handshake({ ca: read('ca.pem') });
    expect(tlsFailure(none, `127.0.0.1:${port}`)?.reason).toBe('client-certificate-refused');
    expect(tlsFailure(none, `127.0.0.1:${port}`)?.detail).toBe('tlsv13 alert certificate required');
    expect(await handshake({ ca: read('ca.pem'), ...identity })).toBeUndefined();
  });
});
