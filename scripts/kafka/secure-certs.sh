#!/usr/bin/env bash
# Generates the TLS material of the secured test broker (KAFKA_SECURE=1) into $1 (default
# $KAFKA_HOME_DIR/secure), once: a test CA, the broker's certificate, a client certificate for mTLS,
# and a second, untrusted CA with a client certificate of its own (for the "untrusted certificate"
# tests). openssl makes the keys and certificates; keytool only the Java truststores, because a
# PKCS12 file made by openssl 3.0 holds no *trusted* certificate entry as Java reads one.
# Nothing is downloaded. See docs/development.md ("The secured broker").
#
# Outputs (password of every store and encrypted key: "changeit", SECURE_STORE_PASSWORD in lib.sh):
#   ca.pem ca.key                  the test CA (clients trust ca.pem)
#   broker.p12                     broker key + certificate chain (SAN localhost, 127.0.0.1, ::1)
#   truststore.p12 truststore.jks  ca.pem as a trusted entry (PKCS12, and JKS for the "refuse JKS" case)
#   client.pem client.key          mTLS client "CN=sharesink-mtls" signed by the CA (PEM, key unencrypted)
#   client-chain.pem               client certificate followed by ca.pem
#   client.key.enc.pem             the same key, PKCS#8 encrypted with the store password
#   client.p12                     the same key and chain as PKCS12
#   client-noacl.pem/.key/.p12     mTLS client "CN=sharesink-noacl" (trusted, but granted nothing)
#   rogue-ca.pem                   an unrelated CA: trusting only it fails the broker's certificate
#   rogue-client.pem/.key/.p12     "CN=sharesink-mtls" signed by the rogue CA: the broker refuses it
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="${1:-$KAFKA_HOME_DIR/secure}"
PASS="$SECURE_STORE_PASSWORD"
DAYS=3650

# one marker written last: a run cut short regenerates everything rather than mixing two CAs
if [[ -f "$OUT/.complete" ]]; then
  exit 0
fi
command -v openssl >/dev/null 2>&1 || die "'openssl' not found on PATH: it generates the secured broker's certificates"
command -v keytool >/dev/null 2>&1 || die "'keytool' not found on PATH (it comes with the JDK): it writes the Java truststores"

rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT"
log "generating the secured broker's CA and certificates in $OUT"

# quiet: openssl writes progress dots and prompts otherwise
ossl() { openssl "$@" 2>>"$OUT/openssl.log"; }

make_ca() { # make_ca <name> <CN>
  ossl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days "$DAYS" -sha256 \
    -subj "/O=sharesink tests/CN=$2" -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign
}

sign() { # sign <name> <CN> <ca> <extensions>
  ossl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/O=sharesink tests/CN=$2"
  printf '%s\n' "$4" >"$1.ext"
  ossl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.pem" \
    -days "$DAYS" -sha256 -extfile "$1.ext"
  rm -f "$1.csr" "$1.ext"
}

CLIENT_EXT='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'

make_ca ca "sharesink test CA"
make_ca rogue-ca "some other CA"

sign broker "localhost" ca 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'
sign client "sharesink-mtls" ca "$CLIENT_EXT"
sign client-noacl "sharesink-noacl" ca "$CLIENT_EXT"
sign rogue-client "sharesink-mtls" rogue-ca "$CLIENT_EXT"

cat client.pem ca.pem >client-chain.pem
ossl pkcs8 -topk8 -in client.key -out client.key.enc.pem -v2 aes-256-cbc -passout "pass:$PASS"

p12() { # p12 <name> <chain CA>: key + certificate (+ CA) as PKCS12, AES (readable by Java and Node)
  ossl pkcs12 -export -in "$1.pem" -inkey "$1.key" -certfile "$2.pem" -name "$1" -out "$1.p12" \
    -passout "pass:$PASS" -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256
}
p12 broker ca
p12 client ca
p12 client-noacl ca
p12 rogue-client rogue-ca

for type in PKCS12 JKS; do
  ext="$([[ $type == PKCS12 ]] && echo p12 || echo jks)"
  keytool -importcert -noprompt -alias sharesink-test-ca -file ca.pem -keystore "truststore.$ext" \
    -storetype "$type" -storepass "$PASS" >>"$OUT/keytool.log" 2>&1 ||
    die "keytool could not write truststore.$ext (log: $OUT/keytool.log)"
done

rm -f ./*.srl openssl.log keytool.log
chmod 600 ./*.key ./*.p12 ./*.jks client.key.enc.pem
touch .complete
log "certificates ready in $OUT (store password: $PASS)"
