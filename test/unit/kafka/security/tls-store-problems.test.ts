// TLS files an operator gets wrong, as `sharesink validate` reads them: each is one problem naming the
// key and the fix, found before any connection (not a 30 s "cannot reach the cluster" at start).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import { overlaySecurityProps, parseKafkaSecurity } from '../../../../src/kafka/security/index.js';
import { loadTlsSettings } from '../../../../src/kafka/security/tls-material.js';
import { makeTestPki, type TestPki } from './test-pki.js';

let pki: TestPki;
let file: (name: string, data: string | Buffer) => string;
beforeAll(() => {
  pki = makeTestPki();
  file = (name, data) => {
    const path = join(pki.dir, name);
    writeFileSync(path, data);
    return path;
  };
}, 60_000);

function problems(props: Record<string, string>): string[] {
  return parseKafkaSecurity(overlaySecurityProps([{ props, prefix: '' }])).problems;
}

describe('a key that does not go with its certificate', () => {
  it('PEM keystore file: another key before the chain is refused at validation, naming the file key', () => {
    const mismatched = file('mismatched.pem', pki.serverKeyPem + pki.clientCertPem + pki.caPem);
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.keystore.location': mismatched,
        'ssl.keystore.type': 'PEM',
      }),
    ).toEqual([
      "ssl.keystore.location: the first certificate does not belong to the private key; accepted: the client's own certificate first (the one issued for this key), then its issuers",
    ]);
  });

  it('a chain in the wrong order (the CA first) is the same problem', () => {
    const reversed = file('reversed.pem', pki.clientKeyPem + pki.caPem + pki.clientCertPem);
    expect(problems({ 'security.protocol': 'SSL', 'ssl.keystore.location': reversed })[0]).toMatch(
      /^ssl\.keystore\.location: the first certificate does not belong to the private key/,
    );
  });

  it('inline PEM: names the chain and the key', () => {
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.keystore.certificate.chain': pki.clientCertPem,
        'ssl.keystore.key': pki.serverKeyPem,
      }),
    ).toEqual([
      "ssl.keystore.certificate.chain: the first certificate does not belong to the private key in ssl.keystore.key; accepted: the client's own certificate first (the one issued for this key), then its issuers",
    ]);
  });

  it('an encrypted key that matches, with its password, still passes', () => {
    expect(
      problems({
        'security.protocol': 'SSL',
        'ssl.keystore.location': pki.clientPemFile,
        'ssl.key.password': pki.keyPassword,
      }),
    ).toEqual([]);
  });

  it("the REST server's keystore is named as the server's", () => {
    const mismatched = file('server-mismatched.pem', pki.clientKeyPem + pki.serverCertPem);
    const loaded = loadTlsSettings({
      keystoreLocation: { key: 'listeners.https.ssl.keystore.location', value: mismatched },
      verifyHostname: false,
      keystoreRole: 'server',
    });
    expect(loaded.problems).toEqual([
      "listeners.https.ssl.keystore.location: the first certificate does not belong to the private key; accepted: the server's own certificate first (the one issued for this key), then its issuers",
    ]);
    const noKey = loadTlsSettings({
      keystoreLocation: { key: 'listeners.https.ssl.keystore.location', value: pki.truststoreP12 },
      keystorePassword: {
        key: 'listeners.https.ssl.keystore.password',
        value: { value: () => pki.storePassword },
      },
      verifyHostname: false,
      keystoreRole: 'server',
    });
    expect(noKey.problems[0]).toMatch(
      /^listeners\.https\.ssl\.keystore\.location: \S+truststore\.p12 cannot be used as the server's certificate \(.*\); accepted: a PKCS12 file with one private key and its certificate \(this one holds no private key: a truststore\?\)$/,
    );
  });
});

describe('store files that are no PEM or PKCS12', () => {
  it('a binary (DER) certificate: says so, with the openssl line that converts it', () => {
    const ca = forge.pki.certificateFromPem(pki.caPem);
    const der = file(
      'ca.der',
      Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(ca)).getBytes(), 'binary'),
    );
    const pem = der.replace(/\.der$/, '.pem');
    expect(problems({ 'security.protocol': 'SSL', 'ssl.truststore.location': der })).toEqual([
      `ssl.truststore.location: ${der} is a certificate in binary (DER) form, which sharesink does not read; accepted: PKCS12 or PEM. Convert it with: openssl x509 -inform DER -in ${der} -out ${pem}, then set ssl.truststore.location=${pem}`,
    ]);
  });

  it('an empty file', () => {
    const empty = file('empty.pem', '\n');
    expect(problems({ 'security.protocol': 'SSL', 'ssl.truststore.location': empty })).toEqual([
      `ssl.truststore.location: ${empty} is empty; accepted: a PKCS12 or PEM file`,
    ]);
  });
});

describe('a missing password is told from a wrong one', () => {
  it('PKCS12 truststore and keystore without their passwords', () => {
    expect(problems({ 'security.protocol': 'SSL', 'ssl.truststore.location': pki.truststoreP12 })).toEqual([
      `ssl.truststore.password: is not set, and the PKCS12 truststore ${pki.truststoreP12} needs a password; accepted: the password it was written with`,
    ]);
    expect(problems({ 'security.protocol': 'SSL', 'ssl.keystore.location': pki.keystoreP12 })).toEqual([
      `ssl.keystore.password: is not set, and the PKCS12 keystore ${pki.keystoreP12} needs a password; accepted: the password it was written with`,
    ]);
  });

  it('an encrypted PEM key without ssl.key.password', () => {
    expect(problems({ 'security.protocol': 'SSL', 'ssl.keystore.location': pki.clientPemFile })).toEqual([
      "ssl.key.password: is not set, and the private key in ssl.keystore.location is encrypted; accepted: the key's passphrase",
    ]);
  });
});
