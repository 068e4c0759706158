// The real-broker mode's pieces that need no broker: the schedule's wording, the id counting of the
// observers, the command/signal files (one put wins a command), the relay's cut and delay and the
// worker-side redirect of broker connections.
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { armCommand, claimCommand, readSignals, sendSignal } from '../../../../src/testing/real/control.js';
import { countIds, observerFor } from '../../../../src/testing/real/observers.js';
import { startRelay, startRelays, type Relay } from '../../../../src/testing/real/relay.js';
import { formatRunSchedule } from '../../../../src/testing/real/schedule.js';

describe('formatRunSchedule', () => {
  it('reads like the bug report', () => {
    expect(
      formatRunSchedule({
        partitions: 1,
        lockRenewal: 'off',
        steps: [
          { records: 3, fault: { kind: 'kill-after-put' } },
          { records: 1, fault: { kind: 'none' } },
          { records: 2, fault: { kind: 'lock-expiry' } },
        ],
      }),
    ).toBe(
      '3 records; kill -9 after put returned, before ACCEPT; restart; 1 record; 2 records; a put slower than the record lock (lock renewal off)',
    );
  });
});

describe('countIds', () => {
  it('counts every id of the run, and no id that only starts like one', () => {
    const counts = countIds(['{"id":"abr1n1"}', '{"id":"abr1n1"} {"id":"abr1n12"}', 'abr2n1'], 'abr1n');
    expect([...counts]).toEqual([
      ['abr1n1', 2],
      ['abr1n12', 1],
    ]);
  });

  it('names the built-in observers and the way out for other sinks', () => {
    expect(observerFor('FileStreamSink', undefined)).toBeTypeOf('function');
    expect(observerFor('PostgresSink', undefined)).toBeTypeOf('function');
    for (const c of ['io.confluent.connect.jdbc.JdbcSinkConnector', 'JdbcSink', 'KafkaSink', 'kafka'])
      expect(observerFor(c, undefined)).toBeTypeOf('function');
    expect(() => observerFor('HttpSink', undefined)).toThrow(/--record-http.*--observer <module>/);
    expect(() => observerFor('./my-sink.ts', undefined)).toThrow(/--observer <module>/);
  });
});

describe('command and signal files', () => {
  it('one claimant takes an armed command; signals are read back in order', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'check-control-'));
    expect(claimCommand(dir)).toBeUndefined();
    armCommand(dir, { seq: 1, action: 'after-put' });
    expect(claimCommand(dir)).toEqual({ seq: 1, action: 'after-put' });
    expect(claimCommand(dir)).toBeUndefined();
    sendSignal(dir, { seq: 1, action: 'after-put', records: [['t', 0, 5]] });
    sendSignal(dir, { seq: 2, action: 'fatal', records: [] });
    expect(readSignals(dir).map((s) => s.seq)).toEqual([1, 2]);
  });
});

describe('relay', () => {
  let echo: net.Server | undefined;
  let relay: Relay | undefined;
  afterEach(async () => {
    await relay?.close();
    await new Promise((r) => (echo ? echo.close(r) : r(undefined)));
  });

  async function setup(): Promise<Relay> {
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo!.listen(0, '127.0.0.1', r));
    relay = await startRelay({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
    return relay;
  }

  const roundTrip = (port: number, text: string): Promise<{ reply: string; socket: net.Socket }> =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(text));
      socket.once('data', (d) => resolve({ reply: d.toString(), socket }));
      socket.once('error', reject);
    });

  it('forwards, delays every chunk while a delay is set, and cuts live connections', async () => {
    const r = await setup();
    const { reply, socket } = await roundTrip(r.port, 'hello');
    expect(reply).toBe('hello');
    r.setDelay(150);
    socket.write('late');
    const late = await new Promise<string>((resolve) => socket.once('data', (d) => resolve(d.toString())));
    expect(late).toBe('late');
    expect(r.chunksDelayed).toBeGreaterThan(0);
    r.setDelay(0);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await r.cut(50);
    await closed;
    expect(r.connectionsCut).toBe(1);
  });

  it("each run's relays are its own: one run's cut leaves another run's connections alone", async () => {
    const r = await setup();
    const target = r.target;
    const a = await startRelays([target]);
    const b = await startRelays([target]);
    try {
      expect(a.redirects[`127.0.0.1:${target.port}`]).toBe(a.relays[0]!.port);
      expect(a.redirects[`localhost:${target.port}`]).toBe(a.relays[0]!.port);
      expect(b.relays[0]!.port).not.toBe(a.relays[0]!.port);
      const inA = await roundTrip(a.relays[0]!.port, 'a');
      const inB = await roundTrip(b.relays[0]!.port, 'b');
      const closedA = new Promise((resolve) => inA.socket.once('close', resolve));
      await a.relays[0]!.cut(20);
      await closedA;
      inB.socket.write('still');
      const still = await new Promise<string>((resolve) =>
        inB.socket.once('data', (d) => resolve(d.toString())),
      );
      expect(still).toBe('still');
      expect(b.relays[0]!.connectionsCut).toBe(0);
      inB.socket.destroy();
    } finally {
      await Promise.all([...a.relays, ...b.relays].map((x) => x.close()));
    }
  });
});
