/**
 * Kafka uuids (topic ids, share-group member ids) in the form Kafka's own tools print: the 16 bytes as
 * unpadded base64url, 22 characters (e.g. `kafka-topics.sh --describe` shows `TopicId: 9QYd6F1sQ2mBqR1lP0Xb4g`).
 * One representation everywhere keeps map keys, logs and tool output comparable.
 */
import { randomBytes } from 'node:crypto';

/** The all-zero uuid (Kafka's `Uuid.ZERO_UUID`): "no topic id". */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Kafka's `Uuid.ONE_UUID` (…01), reserved for the metadata topic; never a real topic or member id. */
export const ONE_UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';

const UUID_RE = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/** True for a canonical 22-character base64url uuid. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * A random (v4) uuid in Kafka's form, as used for a share-group member id (KIP-932: the client makes its
 * member id). Like Kafka's `Uuid.randomUuid()`, it never returns a reserved id nor one starting with `-`
 * (which command-line tools would read as an option).
 */
export function randomUuid(): string {
  for (;;) {
    const b = randomBytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40; // version 4
    b[8] = (b[8]! & 0x3f) | 0x80; // IETF variant
    const s = b.toString('base64url');
    if (s !== ZERO_UUID && s !== ONE_UUID && !s.startsWith('-')) return s;
  }
}

/** The uuid as 32 lowercase hex digits (for comparing with tools that print hex). */
export function uuidToHex(uuid: string): string {
  return Buffer.from(uuid, 'base64url').toString('hex');
}

/** A uuid from 32 hex digits (dashes allowed, as in `123e4567-e89b-12d3-a456-426614174000`). */
export function uuidFromHex(hex: string): string {
  const clean = hex.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(clean)) throw new TypeError(`not a 128-bit hex uuid: ${hex}`);
  return Buffer.from(clean, 'hex').toString('base64url');
}
