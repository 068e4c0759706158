/**
 * The Confluent wire format shared by Schema Registry serializers: byte 0 is the magic byte 0, bytes
 * 1–4 the schema id (big-endian int32), then the body. A Protobuf body starts with the message indexes
 * (a zigzag-varint count, then that many zigzag varints; a single 0 byte stands for [0], the first
 * message of the file).
 */
import { DataError } from '../../errors.js';

export const MAGIC_BYTE = 0;
export const HEADER_BYTES = 5;

/** The schema id of framed bytes, or a DataError saying why they are not in the wire format. */
export function schemaIdOf(bytes: Uint8Array): number {
  if (bytes.byteLength < HEADER_BYTES)
    throw new DataError(
      `not in the Schema Registry wire format: ${bytes.byteLength} byte(s), fewer than the 5 of its header (magic byte 0 and a 4-byte schema id)`,
    );
  if (bytes[0] !== MAGIC_BYTE)
    throw new DataError(
      `not in the Schema Registry wire format: the first byte is ${bytes[0]}, not the magic byte 0 (was this written by a Schema Registry serializer?)`,
    );
  return ((bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!) >>> 0;
}

/** One zigzag varint at `pos`: its value and the position after it. */
function readZigZag(bytes: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos >= bytes.byteLength) throw new DataError('Protobuf message indexes are cut short');
    const b = bytes[pos++]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 35) throw new DataError('Protobuf message indexes hold a varint longer than 5 bytes');
  }
  return [result % 2 === 0 ? result / 2 : -(result + 1) / 2, pos];
}

const FIRST_MESSAGE: readonly number[] = Object.freeze([0]);

/** The message indexes after the header, and where the Protobuf message starts. */
export function messageIndexes(
  bytes: Uint8Array,
  start = HEADER_BYTES,
): { indexes: readonly number[]; offset: number } {
  const [count, first] = readZigZag(bytes, start);
  let pos = first;
  if (count === 0) return { indexes: FIRST_MESSAGE, offset: pos };
  if (count < 0 || count > 64)
    throw new DataError(`Protobuf message indexes: a count of ${count} is not valid`);
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    let index: number;
    [index, pos] = readZigZag(bytes, pos);
    if (index < 0) throw new DataError(`Protobuf message indexes: ${index} is not a valid index`);
    indexes.push(index);
  }
  return { indexes, offset: pos };
}

/** Frames a body (used by tests and the bench to write records as a serializer does). */
export function frame(id: number, body: Uint8Array, indexes?: readonly number[]): Buffer {
  const head = Buffer.alloc(HEADER_BYTES);
  head.writeUInt32BE(id, 1);
  if (indexes === undefined) return Buffer.concat([head, body]);
  const zig = (n: number): number[] => {
    let v = n >= 0 ? n * 2 : -n * 2 - 1;
    const out: number[] = [];
    while (v >= 0x80) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return out;
  };
  const idx =
    indexes.length === 1 && indexes[0] === 0 ? [0] : [...zig(indexes.length), ...indexes.flatMap(zig)];
  return Buffer.concat([head, Buffer.from(idx), body]);
}
