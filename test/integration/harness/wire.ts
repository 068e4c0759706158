// A minimal Kafka wire client for the test harness: one request per connection, non-flexible
// request versions only (request header v1, response header v0). Enough for ApiVersions v0 and
// IncrementalAlterConfigs v0, which kafkajs's admin does not offer for GROUP resources.
// Production code speaks the protocol in src/kafka/; this file exists so the harness does not
// depend on it.
import net from 'node:net';

export const ApiKey = {
  IncrementalAlterConfigs: 44,
  ApiVersions: 18,
  ShareGroupHeartbeat: 76,
  ShareGroupDescribe: 77,
  ShareFetch: 78,
  ShareAcknowledge: 79,
} as const;

/** ConfigResource types (Kafka's ConfigResource.Type ids). */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

class Writer {
  private readonly parts: Buffer[] = [];
  int8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    this.parts.push(b);
    return this;
  }
  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.parts.push(b);
    return this;
  }
  int32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
    return this;
  }
  string(v: string | null): this {
    if (v === null) return this.int16(-1);
    const s = Buffer.from(v, 'utf8');
    this.int16(s.length);
    this.parts.push(s);
    return this;
  }
  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

class Reader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}
  int8(): number {
    const v = this.buf.readInt8(this.offset);
    this.offset += 1;
    return v;
  }
  int16(): number {
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  int32(): number {
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  string(): string | null {
    const len = this.int16();
    if (len < 0) return null;
    const v = this.buf.toString('utf8', this.offset, this.offset + len);
    this.offset += len;
    return v;
  }
}

export function parseBroker(address: string): { host: string; port: number } {
  const first = address.split(',')[0]!.trim();
  const idx = first.lastIndexOf(':');
  if (idx < 0) throw new Error(`broker address "${address}" has no port`);
  return { host: first.slice(0, idx), port: Number(first.slice(idx + 1)) };
}

let correlation = 0;

/** Sends one request and returns the response body (after the v0 response header). */
export function rawRequest(
  broker: string,
  apiKey: number,
  apiVersion: number,
  body: Buffer,
  timeoutMs = 10_000,
): Promise<Buffer> {
  const { host, port } = parseBroker(broker);
  const correlationId = ++correlation;
  const header = new Writer()
    .int16(apiKey)
    .int16(apiVersion)
    .int32(correlationId)
    .string('sharesink-test-harness')
    .build();
  const frame = Buffer.concat([Buffer.alloc(4), header, body]);
  frame.writeInt32BE(frame.length - 4, 0);

  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer from ${host}:${port} to api ${apiKey} v${apiVersion} within ${timeoutMs} ms`),
      );
    }, timeoutMs);
    const done = (err: Error | null, value?: Buffer): void => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4) return;
      const size = received.readInt32BE(0);
      if (received.length < 4 + size) return;
      const gotId = received.readInt32BE(4);
      if (gotId !== correlationId) {
        done(new Error(`correlation id mismatch: sent ${correlationId}, got ${gotId}`));
        return;
      }
      done(null, received.subarray(8, 4 + size));
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error(`connection to ${host}:${port} closed before a full response`)));
  });
}

/** ApiVersions v0: the API keys the broker supports and their version ranges. */
export async function apiVersions(broker: string, timeoutMs?: number): Promise<Map<number, ApiVersionRange>> {
  const r = new Reader(await rawRequest(broker, ApiKey.ApiVersions, 0, Buffer.alloc(0), timeoutMs));
  const errorCode = r.int16();
  if (errorCode !== 0) throw new Error(`ApiVersions failed with error code ${errorCode}`);
  const out = new Map<number, ApiVersionRange>();
  const n = r.int32();
  for (let i = 0; i < n; i++) {
    const apiKey = r.int16();
    out.set(apiKey, { apiKey, minVersion: r.int16(), maxVersion: r.int16() });
  }
  return out;
}

export interface ConfigOp {
  name: string;
  /** null deletes the config (falls back to the broker default). */
  value: string | null;
}

/** IncrementalAlterConfigs v0 on one resource; throws with the broker's message on error. */
export async function incrementalAlterConfigs(
  broker: string,
  resourceType: number,
  resourceName: string,
  ops: ConfigOp[],
): Promise<void> {
  const w = new Writer().int32(1).int8(resourceType).string(resourceName).int32(ops.length);
  for (const op of ops) {
    w.string(op.name)
      .int8(op.value === null ? 1 : 0) // 0 SET, 1 DELETE
      .string(op.value);
  }
  w.int8(0); // validate_only = false
  const r = new Reader(await rawRequest(broker, ApiKey.IncrementalAlterConfigs, 0, w.build()));
  r.int32(); // throttle_time_ms
  const n = r.int32();
  for (let i = 0; i < n; i++) {
    const errorCode = r.int16();
    const message = r.string();
    r.int8();
    const name = r.string();
    if (errorCode !== 0) {
      throw new Error(`IncrementalAlterConfigs on ${name} failed: error code ${errorCode}: ${message ?? ''}`);
    }
  }
}
