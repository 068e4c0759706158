/**
 * TLS handshake failures, said as what they are. Node reports them as socket errors, so without this a
 * broker whose certificate is not trusted reads like an unreachable broker and is retried for
 * `bootstrap.timeout.ms`. No wait cures a certificate: the start-up check ends at the first one, with
 * which side refused whom and the setting that decides it.
 */
import { SharesinkError } from '../../errors.js';

/** Which side of the handshake refused, and why. */
export type TlsFailureReason =
  /** The client does not trust the broker's certificate (unknown CA, self-signed, expired). */
  | 'broker-certificate-untrusted'
  /** The broker's certificate does not name the host the client connected to. */
  | 'hostname-mismatch'
  /** The broker refused the client's certificate, or asked for one and got none (mTLS). */
  | 'client-certificate-refused'
  /** The listener does not speak TLS (a plaintext port, or a proxy). */
  | 'not-tls'
  /** The listener speaks TLS and the client does not (PLAINTEXT or SASL_PLAINTEXT against an SSL port). */
  | 'tls-listener';

/** Node / OpenSSL codes of each reason (the `code` of the socket error, which kafkajs passes on). */
const CODES: ReadonlyArray<readonly [TlsFailureReason, RegExp]> = [
  ['hostname-mismatch', /^ERR_TLS_CERT_ALTNAME_INVALID$/],
  [
    'broker-certificate-untrusted',
    /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_REVOKED|INVALID_CA)$/,
  ],
  [
    'client-certificate-refused',
    /^ERR_SSL_(SSLV3_ALERT_BAD_CERTIFICATE|SSLV3_ALERT_CERTIFICATE_UNKNOWN|TLSV1_ALERT_UNKNOWN_CA|TLSV13_ALERT_CERTIFICATE_REQUIRED|SSLV3_ALERT_UNSUPPORTED_CERTIFICATE|SSLV3_ALERT_CERTIFICATE_EXPIRED|TLSV1_ALERT_ACCESS_DENIED|TLSV1_ALERT_DECRYPT_ERROR)$/,
  ],
  ['not-tls', /^ERR_SSL_(WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|RECORD_LAYER_FAILURE)$/],
];

/** The same failures by their text, for errors that lost their code on the way. */
const TEXTS: ReadonlyArray<readonly [TlsFailureReason, RegExp]> = [
  ['hostname-mismatch', /does not match certificate's altnames/i],
  [
    'broker-certificate-untrusted',
    /self[- ]signed certificate|unable to (verify the first certificate|get (local )?issuer certificate)|certificate has expired|certificate is not yet valid/i,
  ],
  [
    'client-certificate-refused',
    /alert (bad certificate|certificate unknown|unknown ca|certificate required|unsupported certificate|certificate expired|access denied|decrypt error)/i,
  ],
  ['not-tls', /wrong version number|packet length too long|http request/i],
];

/** What the client brought: whether it offers a certificate (mTLS), its security.protocol. */
export interface TlsClientFacts {
  /** True when ssl.keystore.* (or the inline PEM) gives a client certificate. */
  readonly clientCertificate?: boolean | undefined;
  /** `PLAINTEXT`, `SASL_PLAINTEXT`, …, for the advice. */
  readonly protocol?: string | undefined;
}

const KEYSTORE_KEYS =
  'ssl.keystore.location (PKCS12 or PEM, with ssl.keystore.password / ssl.key.password) or ssl.keystore.certificate.chain with ssl.keystore.key';

const ADVICE: Readonly<Record<TlsFailureReason, (broker: string, facts: TlsClientFacts) => string>> = {
  'broker-certificate-untrusted': () =>
    "the client does not trust the broker's certificate. Trust the CA that signed it: ssl.truststore.location (PEM or PKCS12, with ssl.truststore.password) or ssl.truststore.certificates; without them only Node's default CAs are trusted",
  'hostname-mismatch': (broker) =>
    `the broker's certificate does not name ${broker.replace(/:\d+$/, '')}. Connect to a name the certificate lists (bootstrap.servers, and the broker's advertised.listeners), or set ssl.endpoint.identification.algorithm= (empty) to skip the name check`,
  'client-certificate-refused': (_broker, facts) =>
    facts.clientCertificate === false
      ? `the broker wants a client certificate (mTLS) and this client has none. Give one signed by a CA the broker trusts: ${KEYSTORE_KEYS}; or, if this is not the listener meant for this client, check the port in bootstrap.servers`
      : `the broker refused this client's certificate, or wanted one and got none (mTLS). Give a certificate signed by a CA the broker trusts: ${KEYSTORE_KEYS}`,
  'not-tls': () =>
    'the listener does not speak TLS. Check the port in bootstrap.servers and security.protocol: SSL and SASL_SSL are for TLS listeners, PLAINTEXT and SASL_PLAINTEXT for the others',
  'tls-listener': (_broker, facts) =>
    `Set security.protocol=${facts.protocol === 'SASL_PLAINTEXT' ? 'SASL_SSL' : 'SSL (or SASL_SSL, if the listener also wants SASL)'} and trust the broker's CA (ssl.truststore.location, PEM or PKCS12), or point bootstrap.servers at the listener meant for ${facts.protocol ?? 'this client'}`,
};

/** A TLS handshake with a broker failed for a reason no retry fixes. */
export class KafkaTlsError extends SharesinkError {
  readonly broker: string;
  readonly reason: TlsFailureReason;
  /** What TLS said, e.g. `self-signed certificate in certificate chain`. */
  readonly detail: string;

  constructor(args: {
    broker: string;
    reason: TlsFailureReason;
    detail: string;
    cause?: unknown;
    facts?: TlsClientFacts | undefined;
  }) {
    const advice = ADVICE[args.reason](args.broker, args.facts ?? {});
    super(
      'SHARESINK_KAFKA_TLS',
      args.reason === 'tls-listener'
        ? `the listener at ${args.broker} speaks TLS and this client does not (security.protocol=${args.facts?.protocol ?? 'PLAINTEXT'}): ${args.detail}. ${advice}`
        : `TLS handshake with ${args.broker} failed (${args.detail}): ${advice}`,
      { cause: args.cause },
    );
    this.broker = args.broker;
    this.reason = args.reason;
    this.detail = args.detail;
  }
}

/** Every `code` and message along an error's cause chain. */
function chain(err: unknown): Array<{ code: string | undefined; message: string }> {
  const out: Array<{ code: string | undefined; message: string }> = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    out.push({ code: typeof code === 'string' ? code : undefined, message: e.message });
  }
  return out;
}

/** OpenSSL's long form, `…:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:…`, to its reason. */
function shortDetail(message: string): string {
  const openssl = /SSL routines:[^:]*:([^:]+):/.exec(message);
  if (openssl !== null) return openssl[1]!.trim();
  return message
    .replace(/^.*?Connection error: /, '')
    .replace(/^\S+:\d+: /, '')
    .trim();
}

/**
 * The TLS failure behind a connection error, or undefined when it was something else. `facts` (what the
 * client brought) make the advice precise: no certificate at all is said so.
 */
export function tlsFailure(err: unknown, broker: string, facts?: TlsClientFacts): KafkaTlsError | undefined {
  const links = chain(err);
  for (const { code, message } of links) {
    const byCode = code === undefined ? undefined : CODES.find(([, re]) => re.test(code))?.[0];
    const reason = byCode ?? TEXTS.find(([, re]) => re.test(message))?.[0];
    if (reason !== undefined)
      return new KafkaTlsError({ broker, reason, detail: shortDetail(message), cause: err, facts });
  }
  return undefined;
}
