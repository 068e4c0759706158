/**
 * Test-only certificates, made at test time with node-forge (no private key is committed): a CA, a
 * server certificate for 127.0.0.1 / localhost and a client certificate, as PEM and PKCS#12 files in a
 * fresh temporary directory.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

export interface TestPki {
  readonly dir: string;
  readonly caPem: string;
  readonly caPemFile: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  /** The client key, PKCS#8 encrypted with `keyPassword`. */
  readonly clientEncryptedKeyPem: string;
  /** PEM keystore: encrypted key + certificate in one file. */
  readonly clientPemFile: string;
  readonly truststoreP12: string;
  readonly keystoreP12: string;
  readonly storePassword: string;
  readonly keyPassword: string;
  readonly jksFile: string;
}

function keyPair(): forge.pki.rsa.KeyPair {
  return forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 });
}

function certificate(
  subject: Array<{ shortName: string; value: string }>,
  keys: forge.pki.rsa.KeyPair,
  issuer: { attrs: Array<{ shortName: string; value: string }>; key: forge.pki.rsa.PrivateKey },
  extensions: object[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = String(Math.floor(Math.random() * 1e9) + 1);
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject(subject);
  cert.setIssuer(issuer.attrs);
  cert.setExtensions(extensions);
  cert.sign(issuer.key, forge.md.sha256.create());
  return cert;
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'sharesink-pki-'));
  const storePassword = 'store-pw-123';
  const keyPassword = 'key-pw-456';
  const caKeys = keyPair();
  const caAttrs = [{ shortName: 'CN', value: 'sharesink test CA' }];
  const ca = certificate(caAttrs, caKeys, { attrs: caAttrs, key: caKeys.privateKey }, [
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true },
  ]);
  const issuer = { attrs: caAttrs, key: caKeys.privateKey };
  const serverKeys = keyPair();
  const server = certificate([{ shortName: 'CN', value: 'localhost' }], serverKeys, issuer, [
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  const clientKeys = keyPair();
  const client = certificate(
    // most significant first, as certificates list it; Kafka's principal reverses it (RFC 2253)
    [
      { shortName: 'O', value: 'acme' },
      { shortName: 'CN', value: 'client' },
    ],
    clientKeys,
    issuer,
    [{ name: 'extKeyUsage', clientAuth: true }],
  );
  const pem = forge.pki.certificateToPem;
  const caPem = pem(ca);
  const clientKeyPem = forge.pki.privateKeyToPem(clientKeys.privateKey);
  const encrypted = forge.pki.encryptedPrivateKeyToPem(
    forge.pki.encryptPrivateKeyInfo(
      forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(clientKeys.privateKey)),
      keyPassword,
      {
        algorithm: 'aes256',
      },
    ),
  );
  const p12 = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
  const file = (name: string, data: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };
  return {
    dir,
    caPem,
    caPemFile: file('ca.pem', caPem),
    serverCertPem: pem(server),
    serverKeyPem: forge.pki.privateKeyToPem(serverKeys.privateKey),
    clientCertPem: pem(client),
    clientKeyPem,
    clientEncryptedKeyPem: encrypted,
    clientPemFile: file('client.pem', encrypted + pem(client)),
    truststoreP12: file(
      'truststore.p12',
      p12(forge.pkcs12.toPkcs12Asn1(null, [ca], storePassword, { algorithm: 'aes256' })),
    ),
    keystoreP12: file(
      'keystore.p12',
      p12(
        forge.pkcs12.toPkcs12Asn1(clientKeys.privateKey, [client, ca], storePassword, {
          algorithm: 'aes256',
        }),
      ),
    ),
    storePassword,
    keyPassword,
    // the magic number is all that tells a Java KeyStore apart
    jksFile: file('truststore.jks', Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 1])),
  };
}
