/**
 * Decompression of RecordBatch payloads (attributes bits 0–2).
 *
 * | id | codec | implementation |
 * |---|---|---|
 * | 1 | gzip | `node:zlib` |
 * | 2 | snappy | `snappy` (napi-rs; prebuilt binary shipped as an npm package). Java producers frame snappy the xerial way (`SnappyOutputStream`): that framing is unwrapped here; unframed data is read as raw snappy |
 * | 3 | lz4 | `lz4-napi` (napi-rs) LZ4 frame format, as Kafka writes it (`KafkaLZ4BlockOutputStream`, magic ≥ 1) |
 * | 4 | zstd | `fzstd` (pure JS, decompression only: Node 20's zlib has no zstd) |
 *
 * The three packages are optional dependencies of sharesink (ADR 0016), loaded on first use: a process that
 * never meets such a batch never loads them. One that is not installed fails the batch with a
 * `MissingPackageError` naming it and the install command; a native binary that does not load on this
 * platform with `SHARESINK_PROTOCOL_CODEC_UNAVAILABLE`.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { MissingPackageError, requireOptional } from '../../optional-package.js';
import { KafkaProtocolError } from '../errors/kafka-errors.js';

const gunzipAsync = promisify(gunzip);

/** Compression ids of RecordBatch attributes. */
export const CompressionType = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;

const NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** `'gzip'` for 1, …; `'unknown(7)'` otherwise. */
export function compressionName(id: number): string {
  return NAMES[id] ?? `unknown(${id})`;
}

interface SnappyModule {
  uncompressSync(input: Uint8Array, options: { asBuffer: true }): Buffer;
  uncompress(input: Uint8Array, options: { asBuffer: true }): Promise<Buffer>;
  compressSync(input: Uint8Array): Buffer;
}

interface Lz4Module {
  decompressFrameSync(data: Buffer): Buffer;
  decompressFrame(data: Uint8Array): Promise<Buffer>;
  compressFrameSync(data: Buffer): Buffer;
}

interface ZstdModule {
  decompress(input: Uint8Array): Uint8Array;
}

let snappyModule: SnappyModule | undefined;
let lz4Module: Lz4Module | undefined;
let zstdModule: ZstdModule | undefined;

function load<T>(name: string, codec: string): T {
  try {
    return requireOptional<T>(name, `decoding a record batch compressed with ${codec}`);
  } catch (err) {
    if (err instanceof MissingPackageError) throw err;
    throw new KafkaProtocolError(
      `the ${name} package could not be loaded (no prebuilt binary for ${process.platform}-${process.arch}?): ` +
        'batches compressed with it cannot be decoded',
      { code: 'SHARESINK_PROTOCOL_CODEC_UNAVAILABLE', cause: err },
    );
  }
}

/** @internal the native modules, loaded on first use. */
export function snappy(): SnappyModule {
  return (snappyModule ??= load<SnappyModule>('snappy', 'snappy'));
}

/** @internal */
export function lz4(): Lz4Module {
  return (lz4Module ??= load<Lz4Module>('lz4-napi', 'lz4'));
}

/** @internal */
export function fzstd(): ZstdModule {
  return (zstdModule ??= load<ZstdModule>('fzstd', 'zstd'));
}

// xerial snappy framing: 0x82 "SNAPPY" 0x00, int32 version, int32 min-compatible version, then blocks of
// [int32 compressed length][raw snappy block].
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER = 16;

function isXerial(b: Buffer): boolean {
  return b.length >= XERIAL_HEADER && b.compare(XERIAL_MAGIC, 0, 8, 0, 8) === 0;
}

function xerialBlocks(b: Buffer): Buffer[] {
  const blocks: Buffer[] = [];
  let pos = XERIAL_HEADER;
  while (pos < b.length) {
    if (pos + 4 > b.length) throw new KafkaProtocolError('truncated xerial snappy block length');
    const len = b.readInt32BE(pos);
    pos += 4;
    if (len < 0 || pos + len > b.length) throw new KafkaProtocolError('truncated xerial snappy block');
    blocks.push(b.subarray(pos, pos + len));
    pos += len;
  }
  return blocks;
}

function snappySync(b: Buffer): Buffer {
  const s = snappy();
  if (!isXerial(b)) return s.uncompressSync(b, { asBuffer: true });
  const blocks = xerialBlocks(b);
  return blocks.length === 1
    ? s.uncompressSync(blocks[0]!, { asBuffer: true })
    : Buffer.concat(blocks.map((x) => s.uncompressSync(x, { asBuffer: true })));
}

async function snappyAsync(b: Buffer): Promise<Buffer> {
  const s = snappy();
  if (!isXerial(b)) return s.uncompress(b, { asBuffer: true });
  const parts = await Promise.all(xerialBlocks(b).map((x) => s.uncompress(x, { asBuffer: true })));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function zstd(b: Buffer): Buffer {
  const out = fzstd().decompress(b);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Decompresses `data` compressed with codec `id`, synchronously. */
export function decompressSync(id: number, data: Buffer): Buffer {
  switch (id) {
    case CompressionType.GZIP:
      return gunzipSync(data);
    case CompressionType.SNAPPY:
      return snappySync(data);
    case CompressionType.LZ4:
      return lz4().decompressFrameSync(data);
    case CompressionType.ZSTD:
      return zstd(data);
    default:
      throw new KafkaProtocolError(`unknown compression codec ${id}`);
  }
}

/**
 * Decompresses `data` compressed with codec `id`; gzip, snappy and lz4 run off the main thread (libuv pool),
 * zstd (pure JS) runs inline.
 */
export async function decompress(id: number, data: Buffer): Promise<Buffer> {
  switch (id) {
    case CompressionType.GZIP:
      return gunzipAsync(data);
    case CompressionType.SNAPPY:
      return snappyAsync(data);
    case CompressionType.LZ4:
      return lz4().decompressFrame(data);
    case CompressionType.ZSTD:
      return zstd(data);
    default:
      throw new KafkaProtocolError(`unknown compression codec ${id}`);
  }
}
