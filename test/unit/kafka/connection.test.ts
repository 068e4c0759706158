// openBrokerConnection against a scripted fake broker on 127.0.0.1: header layouts on the wire (v1 / v2
// request headers, v0 / v1 response headers), the ApiVersions fallback, timeouts and closes.
import net from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrokerConnection, type BrokerConnection } from '../../../src/kafka/connection.js';
import {
  KafkaConnectionError,
  KafkaProtocolError,
  KafkaRequestTimeoutError,
} from '../../../src/kafka/errors/kafka-errors.js';
import { FindCoordinator, Reader, Writer } from '../../../src/kafka/protocol/index.js';

interface Seen {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** bytes after the client id (header tags for v2 headers, then the body) */
  rest: Buffer;
}

type Reply = (req: Seen) => Buffer | undefined | 'close';

const servers: net.Server[] = [];
const conns: BrokerConnection[] = [];

afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function fakeBroker(reply: Reply): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const r = new Reader(frame);
        const req: Seen = {
          apiKey: r.int16(),
          apiVersion: r.int16(),
          correlationId: r.int32(),
          clientId: r.nullableString(),
          rest: frame.subarray(r.pos),
        };
        seen.push(req);
        const body = reply(req);
        if (body === 'close') {
          socket.destroy();
          return;
        }
        if (body === undefined) continue; // never answer
        const out = Buffer.alloc(8 + body.length);
        out.writeInt32BE(4 + body.length, 0);
        out.writeInt32BE(req.correlationId, 4);
        body.copy(out, 8);
        socket.write(out);
      }
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, seen };
}

/** An ApiVersions body (v3+ layout unless `v0`), listing these ranges. */
function apiVersionsBody(
  ranges: [number, number, number][],
  opts: { errorCode?: number; v0?: boolean } = {},
): Buffer {
  const w = new Writer();
  w.int16(opts.errorCode ?? 0);
  if (opts.v0) {
    w.array(ranges, (x, [k, min, max]) => x.int16(k).int16(min).int16(max));
  } else {
    w.compactArray(ranges, (x, [k, min, max]) => x.int16(k).int16(min).int16(max).emptyTaggedFields());
    w.int32(0).emptyTaggedFields();
  }
  return Buffer.from(w.finish());
}

const RANGES: [number, number, number][] = [
  [18, 0, 3],
  [10, 0, 6],
];

function findCoordinatorBody(): Buffer {
  const w = new Writer();
  w.emptyTaggedFields(); // response header v1 tags
  w.int32(0).compactArray([0], (x) => {
    x.compactString('g')
      .int32(1)
      .compactString('h')
      .int32(9092)
      .int16(0)
      .compactNullableString(null)
      .emptyTaggedFields();
  });
  w.emptyTaggedFields();
  return Buffer.from(w.finish());
}

async function open(port: number, requestTimeoutMs = 2000): Promise<BrokerConnection> {
  const conn = await openBrokerConnection({
    host: '127.0.0.1',
    port,
    nodeId: 1,
    clientId: 'cid',
    logger: pino({ level: 'silent' }),
    requestTimeoutMs,
    connectionTimeoutMs: 2000,
  });
  conns.push(conn);
  return conn;
}

describe('openBrokerConnection', () => {
  it('falls back to the ApiVersions version the broker names, then speaks flexible headers', async () => {
    const broker = await fakeBroker((req) => {
      if (req.apiKey === 18 && req.apiVersion > 3)
        return apiVersionsBody(RANGES, { errorCode: 35, v0: true });
      if (req.apiKey === 18) return apiVersionsBody(RANGES);
      if (req.apiKey === 10) return findCoordinatorBody();
      return undefined;
    });
    const conn = await open(broker.port);
    expect(broker.seen.map((s) => [s.apiKey, s.apiVersion])).toEqual([
      [18, 5],
      [18, 3],
    ]);
    // request header v2: client id (int16 string) then an empty tag section, then the body
    expect(broker.seen[1]!.clientId).toBe('cid');
    expect(broker.seen[1]!.rest.toString('hex')).toBe(
      '00' +
        '0a' +
        Buffer.from('sharesink').toString('hex') +
        '06' +
        Buffer.from('0.0.0').toString('hex') +
        '00',
    );
    expect(conn.versions(10)).toEqual({ min: 0, max: 6 });
    expect(conn.pickVersion(FindCoordinator)).toBe(6);

    const res = await conn.call(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] });
    expect(res.coordinators).toEqual([
      { key: 'g', nodeId: 1, host: 'h', port: 9092, errorCode: 0, errorMessage: null },
    ]);
    expect(broker.seen[2]!.rest[0]).toBe(0); // header tags
  });

  it('a broker without an API: pickVersion throws UnsupportedVersionError', async () => {
    const broker = await fakeBroker((req) => (req.apiKey === 18 ? apiVersionsBody(RANGES) : undefined));
    const conn = await open(broker.port);
    expect(() => conn.pickVersion({ apiKey: 78, name: 'ShareFetch', minVersion: 1, maxVersion: 2 })).toThrow(
      /ShareFetch \(key 78\).*does not support it at all; the broker does not support share groups/,
    );
  });

  it('undecodable responses reject with KafkaProtocolError; the connection stays usable', async () => {
    let n = 0;
    const broker = await fakeBroker((req) => {
      if (req.apiKey === 18) return apiVersionsBody(RANGES);
      return n++ === 0 ? Buffer.from([0, 0, 0]) : findCoordinatorBody();
    });
    const conn = await open(broker.port);
    await expect(conn.call(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] })).rejects.toBeInstanceOf(
      KafkaProtocolError,
    );
    await expect(conn.call(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] })).resolves.toBeDefined();
  });

  it('times out a request with KafkaRequestTimeoutError', async () => {
    const broker = await fakeBroker((req) => (req.apiKey === 18 ? apiVersionsBody(RANGES) : undefined));
    const conn = await open(broker.port, 300);
    await expect(conn.call(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] })).rejects.toBeInstanceOf(
      KafkaRequestTimeoutError,
    );
  });

  it('a broker closing the socket fails the in-flight request and fires onClose', async () => {
    const broker = await fakeBroker((req) => (req.apiKey === 18 ? apiVersionsBody(RANGES) : 'close'));
    const conn = await open(broker.port);
    const closed = new Promise<void>((r) => conn.onClose(r));
    await expect(conn.call(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] })).rejects.toBeInstanceOf(
      KafkaConnectionError,
    );
    await closed;
    expect(conn.connected).toBe(false);
  });

  it('nothing listening: KafkaConnectionError', async () => {
    const broker = await fakeBroker(() => undefined);
    const port = broker.port;
    await new Promise((r) => servers.pop()!.close(r));
    await expect(open(port)).rejects.toBeInstanceOf(KafkaConnectionError);
  });
});
