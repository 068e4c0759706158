import { connect, createServer, type TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  kafkajsSecurityOptions,
  overlaySecurityProps,
  parseKafkaSecurity,
  type KafkaSecurity,
} from '../../../../src/kafka/security/index.js';
import { makeTestPki, type TestPki } from './test-pki.js';

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
}, 60_000);

const JAAS_PLAIN =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";';
const JAAS_SCRAM =
  'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-secret";';

function parse(props: Record<string, string>, prefix = '') {
  return parseKafkaSecurity(overlaySecurityProps([{ props, prefix }]));
}

function ok(props: Record<string, string>, prefix = ''): KafkaSecurity {
  const check = parse(props, prefix);
  expect(check.problems).toEqual([]);
  return check.security!;
}

describe('Connect security keys → kafkajs options', () => {
  it('PLAINTEXT (the default) gives kafkajs neither ssl nor sasl', () => {
    expect(kafkajsSecurityOptions(ok({}))).toEqual({});
    expect(ok({}).principal).toBe('User:ANONYMOUS');
  });

  it('SASL_PLAINTEXT + PLAIN: the JAAS user and password, no TLS', () => {
    const s = ok({
      'security.protocol': 'sasl_plaintext',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': JAAS_PLAIN,
    });
    expect(kafkajsSecurityOptions(s)).toEqual({
      sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' },
    });
    expect(s.principal).toBe('User:alice');
  });

  it.each([
    ['SCRAM-SHA-256', 'scram-sha-256'],
    ['SCRAM-SHA-512', 'scram-sha-512'],
  ])('SASL_SSL + %s over TLS with a PEM truststore', (mechanism, kafkajsName) => {
    const s = ok({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': mechanism,
      'sasl.jaas.config': JAAS_SCRAM,
      'ssl.truststore.location': pki.caPemFile,
      'ssl.truststore.type': 'PEM',
    });
    const o = kafkajsSecurityOptions(s);
    expect(o.sasl).toEqual({ mechanism: kafkajsName, username: 'bob', password: 'bob-secret' });
    expect(o.ssl).toMatchObject({ ca: [expect.stringContaining('BEGIN CERTIFICATE')] });
    expect((o.ssl as { checkServerIdentity?: unknown }).checkServerIdentity).toBeUndefined();
  });

  it('SASL_SSL without a truststore trusts Node’s default CAs (a cloud service)', () => {
    const o = kafkajsSecurityOptions(
      ok({ 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': JAAS_PLAIN }),
    );
    expect(o.ssl).toEqual({});
  });

  it('a PKCS12 truststore gives its certificates as ca (Node’s pfx wants a key, a truststore has none)', () => {
    const s = ok({
      'security.protocol': 'SSL',
      'ssl.truststore.location': pki.truststoreP12,
      'ssl.truststore.password': pki.storePassword,
      // Java reads PKCS12 declared JKS: so does sharesink
      'ssl.truststore.type': 'JKS',
    });
    const ssl = kafkajsSecurityOptions(s).ssl as { ca: string[] };
    expect(ssl.ca).toHaveLength(1);
    expect(ssl.ca[0]!.replace(/\s/g, '')).toBe(pki.caPem.replace(/\s/g, ''));
  });

  it('mTLS with a PKCS12 keystore: pfx and its password; the principal is the certificate subject', () => {
    const s = ok({
      'security.protocol': 'SSL',
      'ssl.truststore.location': pki.caPemFile,
      'ssl.keystore.location': pki.keystoreP12,
      'ssl.keystore.password': pki.storePassword,
      'ssl.keystore.type': 'PKCS12',
    });
    const ssl = kafkajsSecurityOptions(s).ssl as { pfx: Buffer; passphrase: string };
    expect(Buffer.isBuffer(ssl.pfx)).toBe(true);
    expect(ssl.passphrase).toBe(pki.storePassword);
    expect(s.principal).toBe('User:CN=client,O=acme');
  });

  it('mTLS with inline PEM written on one line (a .properties continuation) and an encrypted key', () => {
    const oneLine = (pem: string) => pem.replace(/\n/g, ' ');
    const s = ok(
      {
        'consumer.override.security.protocol': 'SSL',
        'consumer.override.ssl.truststore.certificates': oneLine(pki.caPem),
        'consumer.override.ssl.keystore.certificate.chain': oneLine(pki.clientCertPem),
        'consumer.override.ssl.keystore.key': oneLine(pki.clientEncryptedKeyPem),
        'consumer.override.ssl.key.password': pki.keyPassword,
      },
      'consumer.override.',
    );
    const ssl = kafkajsSecurityOptions(s).ssl as {
      key: string;
      cert: string;
      passphrase: string;
      ca: string[];
    };
    expect(ssl.key).toContain('-----BEGIN ENCRYPTED PRIVATE KEY-----\n');
    expect(ssl.cert).toContain('-----BEGIN CERTIFICATE-----\n');
    expect(ssl.passphrase).toBe(pki.keyPassword);
    expect(s.principal).toBe('User:CN=client,O=acme');
  });

  it('a PEM keystore file (encrypted key + chain) with ssl.key.password', () => {
    const s = ok({
      'security.protocol': 'SSL',
      'ssl.keystore.location': pki.clientPemFile,
      'ssl.key.password': pki.keyPassword,
    });
    expect(kafkajsSecurityOptions(s).ssl).toMatchObject({ passphrase: pki.keyPassword });
  });

  it('ssl.endpoint.identification.algorithm= (empty) turns off the host name check only', () => {
    const s = ok({
      'security.protocol': 'SSL',
      'ssl.truststore.location': pki.caPemFile,
      'ssl.endpoint.identification.algorithm': '',
    });
    const ssl = kafkajsSecurityOptions(s).ssl as { checkServerIdentity: () => unknown; ca: string[] };
    expect(ssl.checkServerIdentity()).toBeUndefined();
    expect(ssl.ca).toHaveLength(1);
  });

  it('OAUTHBEARER with a token endpoint hands kafkajs a token provider', () => {
    const s = ok({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'OAUTHBEARER',
      'sasl.oauthbearer.token.endpoint.url': 'https://idp.example.com/oauth2/token',
      'sasl.jaas.config':
        'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="svc" clientSecret="oauth-secret" scope="kafka";',
    });
    expect(s.sasl).toMatchObject({ mechanism: 'OAUTHBEARER', clientId: 'svc', scope: 'kafka' });
    const sasl = kafkajsSecurityOptions(s).sasl as { mechanism: string; oauthBearerProvider: unknown };
    expect(sasl.mechanism).toBe('oauthbearer');
    expect(typeof sasl.oauthBearerProvider).toBe('function');
    // the same settings give the same provider: every connection shares one token
    expect((kafkajsSecurityOptions(s).sasl as typeof sasl).oauthBearerProvider).toBe(
      sasl.oauthBearerProvider,
    );
  });

  it('OAUTHBEARER unsecured tokens (unsecuredLoginStringClaim_sub) for development brokers', async () => {
    const s = ok({
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'OAUTHBEARER',
      'sasl.jaas.config':
        'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="dev";',
    });
    const sasl = kafkajsSecurityOptions(s).sasl as { oauthBearerProvider: () => Promise<{ value: string }> };
    const token = (await sasl.oauthBearerProvider()).value;
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toMatchObject({
      sub: 'dev',
    });
    expect(s.principal).toBe('User:dev');
  });
});

describe('refused at validation, with the key and what is accepted', () => {
  const problems = (props: Record<string, string>, prefix = '') => parse(props, prefix).problems;

  it('SASL_SSL without sasl.mechanism (Java would use GSSAPI)', () => {
    expect(problems({ 'consumer.override.security.protocol': 'SASL_SSL' }, 'consumer.override.')).toEqual([
      expect.stringMatching(
        /^consumer\.override\.sasl\.mechanism: .*SASL_SSL needs a SASL mechanism.*accepted: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER/,
      ),
    ]);
  });

  it('an unknown protocol, GSSAPI, and a login module that does not match the mechanism', () => {
    expect(problems({ 'security.protocol': 'TLS' })[0]).toMatch(
      /^security\.protocol: "TLS" is not a security protocol; accepted: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL$/,
    );
    expect(problems({ 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'GSSAPI' })[0]).toMatch(
      /^sasl\.mechanism: "GSSAPI" is not supported \(Kerberos.*accepted: PLAIN/,
    );
    expect(
      problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': JAAS_PLAIN,
      })[0],
    ).toMatch(
      /^sasl\.jaas\.config: the login module .*PlainLoginModule does not go with sasl\.mechanism=SCRAM-SHA-512; accepted: org\.apache\.kafka\.common\.security\.scram\.ScramLoginModule required/,
    );
  });

  it('PLAIN without sasl.jaas.config, or without a password in it', () => {
    expect(problems({ 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'PLAIN' })[0]).toMatch(
      /^sasl\.jaas\.config: is required with sasl\.mechanism=PLAIN; accepted: .*PlainLoginModule required username="…" password="…";/,
    );
    expect(
      problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'PLAIN',
        'sasl.jaas.config':
          'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice";',
      })[0],
    ).toMatch(/^sasl\.jaas\.config: has no password option/);
  });

  it('OAUTHBEARER without a token endpoint, or without client credentials', () => {
    expect(
      problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'OAUTHBEARER',
        'sasl.jaas.config':
          'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="a" clientSecret="b";',
      })[0],
    ).toMatch(
      /^sasl\.oauthbearer\.token\.endpoint\.url: is required with sasl\.mechanism=OAUTHBEARER; accepted: the https:\/\/ URL/,
    );
    expect(
      problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'OAUTHBEARER',
        'sasl.oauthbearer.token.endpoint.url': 'https://idp/token',
        'sasl.jaas.config':
          'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="a";',
      })[0],
    ).toMatch(/^sasl\.jaas\.config: has no clientSecret for the token endpoint/);
  });

  it('a JKS store, with the keytool line that converts it', () => {
    expect(problems({ 'security.protocol': 'SSL', 'ssl.truststore.location': pki.jksFile })).toEqual([
      `ssl.truststore.location: ${pki.jksFile} is a Java KeyStore (JKS/JCEKS), which sharesink does not read; accepted: PKCS12 or PEM. Convert it with: keytool -importkeystore -srckeystore ${pki.jksFile} -srcstoretype JKS -destkeystore ${pki.jksFile.replace(/\.jks$/, '.p12')} -deststoretype PKCS12, then set ssl.truststore.location=${pki.jksFile.replace(/\.jks$/, '.p12')}`,
    ]);
  });

  it('a wrong store password, a missing file, an unknown store type, location and inline together', () => {
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.truststore.location': pki.truststoreP12,
        'ssl.truststore.password': 'nope-WRONG',
      }),
    ).toEqual([
      `ssl.truststore.password: does not open the PKCS12 truststore ${pki.truststoreP12} (wrong password)`,
    ]);
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.keystore.location': pki.keystoreP12,
        'ssl.keystore.password': 'nope-WRONG',
      }),
    ).toEqual([
      `ssl.keystore.password: does not open the PKCS12 keystore ${pki.keystoreP12} (wrong password)`,
    ]);
    expect(problems({ 'security.protocol': 'SSL', 'ssl.truststore.location': '/no/such/ca.pem' })).toEqual([
      'ssl.truststore.location: cannot read /no/such/ca.pem (ENOENT); accepted: a readable file',
    ]);
    expect(problems({ 'security.protocol': 'SSL', 'ssl.keystore.type': 'BCFKS' })[0]).toMatch(
      /^ssl\.keystore\.type: "BCFKS" is not a store type sharesink reads; accepted: PKCS12 or PEM$/,
    );
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.truststore.location': pki.caPemFile,
        'ssl.truststore.certificates': pki.caPem,
      })[0],
    ).toMatch(
      /^ssl\.truststore\.certificates: both ssl\.truststore\.location and ssl\.truststore\.certificates are set/,
    );
    expect(
      problems({ 'security.protocol': 'SSL', 'ssl.endpoint.identification.algorithm': 'http' })[0],
    ).toMatch(/^ssl\.endpoint\.identification\.algorithm: "http" is not .*accepted: https .* or empty/);
  });

  it('a wrong ssl.key.password for an encrypted PEM key', () => {
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.keystore.certificate.chain': pki.clientCertPem,
        'ssl.keystore.key': pki.clientEncryptedKeyPem,
        'ssl.key.password': 'nope-WRONG',
      }),
    ).toEqual(['ssl.key.password: does not decrypt the private key in ssl.keystore.key (wrong password)']);
  });

  it('never prints a secret in a problem', () => {
    const all = [
      ...problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': JAAS_PLAIN,
      }),
      ...problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'PLAIN',
        'sasl.jaas.config': 'PlainLoginModule username="alice" password="alice-secret";',
      }),
      ...problems({
        'security.protocol': 'SSL',
        'ssl.truststore.location': pki.truststoreP12,
        'ssl.truststore.password': 'nope-WRONG',
      }),
    ].join('\n');
    expect(all).not.toMatch(/alice-secret|nope-WRONG/);
  });

  it('warns about sasl.* / ssl.* settings the protocol does not use, and about keys it does not read', () => {
    const check = parse({
      'sasl.mechanism': 'PLAIN',
      'ssl.truststore.location': pki.caPemFile,
      'ssl.cipher.suites': 'X',
    });
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual([
      expect.stringMatching(/^sasl\.mechanism: not used with security\.protocol=PLAINTEXT \(the default\)/),
      expect.stringMatching(/^ssl\.truststore\.location: not used with security\.protocol=PLAINTEXT/),
      'ssl.cipher.suites: has no effect in sharesink (its Kafka clients do not read it); ignored',
    ]);
  });
});

describe('the mapping against a real TLS handshake (node:tls server, test CA)', () => {
  it('mTLS: the client verifies the server by its CA and host name, the server sees the client certificate', async () => {
    const server = createServer({
      cert: pki.serverCertPem,
      key: pki.serverKeyPem,
      ca: [pki.caPem],
      requestCert: true,
      rejectUnauthorized: true,
    });
    const seen = new Promise<string | undefined>((resolve) =>
      server.once('secureConnection', (socket: TLSSocket) => {
        resolve(socket.getPeerCertificate().subject?.CN as string | undefined);
        socket.end();
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const ssl = kafkajsSecurityOptions(
      ok({
        'security.protocol': 'SSL',
        'ssl.truststore.location': pki.truststoreP12,
        'ssl.truststore.password': pki.storePassword,
        'ssl.keystore.location': pki.keystoreP12,
        'ssl.keystore.password': pki.storePassword,
      }),
    ).ssl as object;
    try {
      const socket = connect({ host: 'localhost', port, servername: 'localhost', ...ssl });
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve);
        socket.once('error', reject);
      });
      expect(socket.authorized).toBe(true);
      expect(await seen).toBe('client');
      socket.destroy();
      // a host name the certificate does not name is refused, unless identification is off
      const wrongName = connect({ host: '127.0.0.1', port, servername: 'kafka.example.com', ...ssl });
      await expect(
        new Promise((resolve, reject) => {
          wrongName.once('secureConnect', resolve);
          wrongName.once('error', reject);
        }),
      ).rejects.toThrow(/altnames|Hostname/i);
    } finally {
      server.close();
    }
  });
});
