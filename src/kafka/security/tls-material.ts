/**
 * Reads the TLS material Connect's `ssl.*` keys name (truststore, keystore, inline PEM) into what
 * `node:tls` takes. PEM and PKCS#12 are read; the format comes from the file's first bytes, so a PKCS#12
 * file declared `ssl.truststore.type=JKS` (Java reads those too) works. JKS/JCEKS are refused with the
 * keytool line that converts them. Every problem names the key as the user wrote it and never a secret.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type Forge from 'node-forge';
import { requireOptional } from '../../optional-package.js';
import { HiddenValue, type Secret, type TlsSettings } from './types.js';

/**
 * Required on first use: node-forge takes ~65 ms to import, only PKCS#12 files need it, and every pool
 * thread imports this module (the registry converters' TLS settings).
 */
const forge = (): typeof Forge =>
  requireOptional<typeof Forge>('node-forge', 'reading a PKCS#12 truststore or keystore');
const certBag = (): string => forge().pki.oids['certBag'] as string;

/** One setting with the key it was written under (`consumer.override.ssl.truststore.location`). */
export interface Setting {
  readonly key: string;
  readonly value: string;
}

export interface SecretSetting {
  readonly key: string;
  readonly value: Secret;
}

export interface TlsInput {
  readonly truststoreLocation?: Setting | undefined;
  readonly truststorePassword?: SecretSetting | undefined;
  readonly truststoreType?: Setting | undefined;
  readonly truststoreCertificates?: SecretSetting | undefined;
  readonly keystoreLocation?: Setting | undefined;
  readonly keystorePassword?: SecretSetting | undefined;
  readonly keystoreType?: Setting | undefined;
  readonly keystoreCertificateChain?: SecretSetting | undefined;
  readonly keystoreKey?: SecretSetting | undefined;
  readonly keyPassword?: SecretSetting | undefined;
  readonly verifyHostname: boolean;
  /** Whose certificate the keystore holds, for messages: a Kafka client's (default) or a server's (REST). */
  readonly keystoreRole?: 'client' | 'server' | undefined;
}

export const STORE_TYPES = ['PEM', 'PKCS12', 'JKS'] as const;

type Format = 'PEM' | 'PKCS12' | 'DER' | 'JKS' | 'JCEKS' | 'empty' | 'unknown';

function isDerCertificate(bytes: Buffer): boolean {
  try {
    new X509Certificate(bytes);
    return true;
  } catch {
    return false;
  }
}

function formatOf(bytes: Buffer): Format {
  if (bytes.toString('latin1').trim() === '') return 'empty';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0xfeedfeed) return 'JKS';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0xcececece) return 'JCEKS';
  if (bytes.toString('latin1', 0, Math.min(bytes.length, 4096)).includes('-----BEGIN ')) return 'PEM';
  // a .crt / .cer certificate in binary (DER) form starts like a PKCS12 file: both are ASN.1 sequences
  if (bytes[0] === 0x30) return isDerCertificate(bytes) ? 'DER' : 'PKCS12';
  return 'unknown';
}

/** The problem of a file that is no store sharesink reads, or undefined for PEM and PKCS12. */
function unreadableFormat(format: Format, location: Setting): string | undefined {
  switch (format) {
    case 'JKS':
    case 'JCEKS':
      return keytoolLine(location.key, location.value);
    case 'empty':
      return `${location.key}: ${location.value} is empty; accepted: a PKCS12 or PEM file`;
    case 'DER':
      return `${location.key}: ${location.value} is a certificate in binary (DER) form, which sharesink does not read; accepted: PKCS12 or PEM. Convert it with: openssl x509 -inform DER -in ${location.value} -out ${pemName(location.value)}, then set ${location.key}=${pemName(location.value)}`;
    case 'unknown':
      return `${location.key}: ${location.value} is neither PEM nor PKCS12; accepted: PKCS12 or PEM`;
    default:
      return undefined;
  }
}

function pemName(location: string): string {
  return location.replace(/\.(der|cer|crt)$/i, '') + '.pem';
}

/** `does not open …`: the password is wrong, or it is not set and the file needs one. */
function passwordProblem(key: string, password: SecretSetting | undefined, what: string): string {
  return password === undefined
    ? `${key}: is not set, and ${what} needs a password; accepted: the password it was written with`
    : `${key}: does not open ${what} (wrong password)`;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * PEM blocks, re-wrapped: a PEM value written on one line (a `.properties` continuation joins the lines)
 * loses its line breaks, which Java's PEM reader tolerates and OpenSSL does not.
 */
export function pemBlocks(text: string): Array<{ label: string; pem: string }> {
  const out: Array<{ label: string; pem: string }> = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const label = m[1]!;
    const body = m[2]!;
    // legacy encrypted keys carry headers (Proc-Type: …) that must keep their lines
    const pem = body.includes(':')
      ? m[0]
      : `-----BEGIN ${label}-----\n${(body.replace(/\s+/g, '').match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${label}-----\n`;
    out.push({ label, pem });
  }
  return out;
}

function keytoolLine(key: string, location: string): string {
  const target = location.replace(/\.(jks|jceks|keystore|truststore)$/i, '') + '.p12';
  return `${key}: ${location} is a Java KeyStore (JKS/JCEKS), which sharesink does not read; accepted: PKCS12 or PEM. Convert it with: keytool -importkeystore -srckeystore ${location} -srcstoretype JKS -destkeystore ${target} -deststoretype PKCS12, then set ${key}=${target}`;
}

class Problems {
  readonly list: string[] = [];
  add(text: string): undefined {
    this.list.push(text);
    return undefined;
  }
}

function readStore(location: Setting, problems: Problems): Buffer | undefined {
  try {
    return readFileSync(location.value);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return problems.add(
      `${location.key}: cannot read ${location.value} (${code}); accepted: a readable file`,
    );
  }
}

function certificatesOf(text: string, key: string, what: string, problems: Problems): string[] | undefined {
  const certs = pemBlocks(text)
    .filter((b) => b.label === 'CERTIFICATE')
    .map((b) => b.pem);
  if (certs.length === 0)
    return problems.add(
      `${key}: ${what} holds no PEM certificate; accepted: -----BEGIN CERTIFICATE----- blocks`,
    );
  for (const cert of certs) {
    try {
      new X509Certificate(cert);
    } catch (err) {
      return problems.add(
        `${key}: ${what} holds a certificate that cannot be read (${(err as Error).message})`,
      );
    }
  }
  return certs;
}

/** Trusted certificates of a PKCS#12 truststore: Node's `pfx` wants a key, and a truststore has none. */
function pkcs12Certificates(bytes: Buffer, input: TlsInput, problems: Problems): string[] | undefined {
  const location = input.truststoreLocation!;
  const passwordKey = input.truststorePassword?.key ?? location.key.replace(/location$/, 'password');
  let p12: Forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge().pkcs12.pkcs12FromAsn1(
      forge().asn1.fromDer(bytes.toString('binary')),
      input.truststorePassword?.value.value() ?? '',
    );
  } catch (err) {
    const wrongPassword = /MAC could not be verified|Invalid password/i.test((err as Error).message);
    return problems.add(
      wrongPassword
        ? passwordProblem(passwordKey, input.truststorePassword, `the PKCS12 truststore ${location.value}`)
        : `${location.key}: ${location.value} is not a PKCS12 file sharesink can read (${(err as Error).message}); accepted: PKCS12 or PEM`,
    );
  }
  const bag = certBag();
  const bags = p12.getBags({ bagType: bag })[bag] ?? [];
  const certs = bags.flatMap((b: Forge.pkcs12.Bag) => (b.cert ? [forge().pki.certificateToPem(b.cert)] : []));
  if (certs.length === 0)
    return problems.add(`${location.key}: the PKCS12 truststore ${location.value} holds no certificate`);
  return certs;
}

function trustedCertificates(input: TlsInput, problems: Problems): string[] | undefined {
  const { truststoreLocation: location, truststoreCertificates: inline } = input;
  if (inline !== undefined) return certificatesOf(inline.value.value(), inline.key, 'the value', problems);
  if (location === undefined) return undefined;
  const bytes = readStore(location, problems);
  if (bytes === undefined) return undefined;
  const format = formatOf(bytes);
  if (format === 'PEM') return certificatesOf(bytes.toString('utf8'), location.key, location.value, problems);
  if (format === 'PKCS12') return pkcs12Certificates(bytes, input, problems);
  return problems.add(unreadableFormat(format, location)!);
}

const KEY_LABELS = new Set(['PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);

interface ClientIdentity {
  cert?: string;
  key?: Secret;
  pfx?: Buffer;
  pfxPassphrase?: Secret;
}

/** A key and chain from PEM text (a PEM keystore file, or the inline keys). */
function pemIdentity(
  keyText: string,
  chainText: string,
  keyKey: string,
  chainKey: string,
  input: TlsInput,
  problems: Problems,
): ClientIdentity | undefined {
  const keys = pemBlocks(keyText).filter((b) => KEY_LABELS.has(b.label));
  if (keys.length !== 1)
    return problems.add(
      `${keyKey}: holds ${keys.length} private keys; accepted: exactly one -----BEGIN PRIVATE KEY----- (or ENCRYPTED PRIVATE KEY) block`,
    );
  const certs = certificatesOf(chainText, chainKey, 'the certificate chain', problems);
  if (certs === undefined) return undefined;
  const keyPem = keys[0]!.pem;
  const passphrase = input.keyPassword?.value.value();
  try {
    createPrivateKey({ key: keyPem, passphrase });
  } catch (err) {
    const encrypted = keys[0]!.label === 'ENCRYPTED PRIVATE KEY' || keyPem.includes('ENCRYPTED');
    const passwordKey =
      input.keyPassword?.key ?? keyKey.replace(/ssl\.keystore\.(key|location)$/, 'ssl.key.password');
    return problems.add(
      encrypted
        ? input.keyPassword === undefined
          ? `${passwordKey}: is not set, and the private key in ${keyKey} is encrypted; accepted: the key's passphrase`
          : `${passwordKey}: does not decrypt the private key in ${keyKey} (wrong password)`
        : `${keyKey}: the private key cannot be read (${(err as Error).message})`,
    );
  }
  try {
    // the key must be the first certificate's: TLS would refuse the pair only at the first connection
    createSecureContext({ cert: certs.join(''), key: keyPem, passphrase });
  } catch (err) {
    const message = (err as Error).message;
    return problems.add(
      /key values mismatch/i.test(message)
        ? `${chainKey}: the first certificate does not belong to the private key${chainKey === keyKey ? '' : ` in ${keyKey}`}; accepted: the ${input.keystoreRole ?? 'client'}'s own certificate first (the one issued for this key), then its issuers`
        : `${chainKey}: the private key and certificate chain cannot be used together (${message})`,
    );
  }
  return { cert: certs.join(''), key: new HiddenValue(keyPem) };
}

function clientIdentity(input: TlsInput, problems: Problems): ClientIdentity | undefined {
  const { keystoreLocation: location, keystoreCertificateChain: chain, keystoreKey: key } = input;
  if (chain !== undefined || key !== undefined) {
    if (chain === undefined || key === undefined) {
      const [have, missing] =
        chain === undefined
          ? [key!.key, key!.key.replace(/key$/, 'certificate.chain')]
          : [chain.key, chain.key.replace(/certificate\.chain$/, 'key')];
      return problems.add(`${missing}: is required with ${have}; accepted: both, as PEM`);
    }
    return pemIdentity(key.value.value(), chain.value.value(), key.key, chain.key, input, problems);
  }
  if (location === undefined) return undefined;
  const bytes = readStore(location, problems);
  if (bytes === undefined) return undefined;
  const format = formatOf(bytes);
  if (format === 'PEM') {
    const text = bytes.toString('utf8');
    return pemIdentity(text, text, location.key, location.key, input, problems);
  }
  if (format !== 'PKCS12') return problems.add(unreadableFormat(format, location)!);
  const passphrase = input.keystorePassword?.value;
  try {
    // opening it here tells a wrong password at validation rather than at the first connection
    createSecureContext({ pfx: bytes, passphrase: passphrase?.value() ?? '' });
  } catch (err) {
    const message = (err as Error).message;
    const role = input.keystoreRole ?? 'client';
    return problems.add(
      /mac verify|password/i.test(message)
        ? passwordProblem(
            input.keystorePassword?.key ?? location.key.replace(/location$/, 'password'),
            input.keystorePassword,
            `the PKCS12 keystore ${location.value}`,
          )
        : `${location.key}: ${location.value} cannot be used as the ${role}'s certificate (${message}); accepted: a PKCS12 file with one private key and its certificate${/private key/i.test(message) ? ' (this one holds no private key: a truststore?)' : ''}`,
    );
  }
  return { pfx: bytes, pfxPassphrase: passphrase ?? new HiddenValue('') };
}

/** Kafka's default principal for a certificate: its subject in RFC 2253 order (`CN=client,O=acme`). */
export function certificatePrincipal(identity: {
  cert?: string;
  pfx?: Buffer;
  pfxPassphrase?: Secret;
}): string | undefined {
  let pem = identity.cert;
  if (pem === undefined && identity.pfx !== undefined) {
    try {
      const p12 = forge().pkcs12.pkcs12FromAsn1(
        forge().asn1.fromDer(identity.pfx.toString('binary')),
        identity.pfxPassphrase?.value() ?? '',
      );
      const bag = certBag();
      const withKey = p12.getBags({ bagType: bag })[bag]?.[0]?.cert;
      if (withKey) pem = forge().pki.certificateToPem(withKey);
    } catch {
      return undefined;
    }
  }
  if (pem === undefined) return undefined;
  try {
    const subject = new X509Certificate(pem).subject.split('\n').reverse().join(',');
    return `User:${subject}`;
  } catch {
    return undefined;
  }
}

/** The TLS settings, or the problems; material is read and checked here, once. */
export function loadTlsSettings(input: TlsInput): { tls: TlsSettings | undefined; problems: string[] } {
  const problems = new Problems();
  const ca = trustedCertificates(input, problems);
  const identity = clientIdentity(input, problems);
  if (problems.list.length > 0) return { tls: undefined, problems: problems.list };
  return {
    tls: {
      ca,
      cert: identity?.cert,
      key: identity?.key,
      keyPassphrase: identity?.key === undefined ? undefined : input.keyPassword?.value,
      pfx: identity?.pfx,
      pfxPassphrase: identity?.pfxPassphrase,
      verifyHostname: input.verifyHostname,
    },
    problems: [],
  };
}
