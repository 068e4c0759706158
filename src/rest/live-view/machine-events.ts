/**
 * `GET /machines/events`: Server-Sent Events with live actors per state and transitions per second for
 * the batch, task and connector machines. One timer for all clients, at most 4 updates a second, and
 * an update only when something changed (a keep-alive comment every 15 s otherwise), so an open page
 * costs the worker next to nothing.
 */
import type { ServerResponse } from 'node:http';
import { stateValueName } from '../../observability/transition-counter.js';
import type { RestWorker } from '../worker-view.js';

export interface MachinesUpdate {
  /** Epoch ms of the reading. */
  at: number;
  /** machine → state → live actors. Batch states may carry a `/renewing` suffix (lock renewal running). */
  states: Record<string, Record<string, number>>;
  /** Transitions per second over the last second, by machine and (from, to); only non-zero rates. */
  rates: Array<{ machine: string; from: string; to: string; perSecond: number }>;
  /** Transitions so far by machine. */
  totals: Record<string, number>;
}

export function liveStates(worker: RestWorker): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = { batch: {}, task: {}, connector: {} };
  Object.assign(out['batch']!, worker.actorCensus.counts()['batch'] ?? {});
  const bump = (machine: string, state: string) => {
    const m = (out[machine] ??= {});
    m[state] = (m[state] ?? 0) + 1;
  };
  // task and connector actors are read from the runtime, so final states (failed, stopped) count too
  for (const c of worker.connectors) {
    bump('connector', stateValueName(c.actors.connector.getSnapshot().value));
    for (const t of c.actors.tasks) bump('task', stateValueName(t.getSnapshot().value));
  }
  return out;
}

/** Turns cumulative transition counts into per-second rates over a sliding window of about a second. */
export class RateTracker {
  private readonly history: Array<{ at: number; counts: Map<string, number> }> = [];

  constructor(private readonly windowMs = 1000) {}

  update(
    at: number,
    counts: ReadonlyArray<{ machine: string; from: string; to: string; count: number }>,
  ): MachinesUpdate['rates'] {
    const now = new Map(counts.map((c) => [`${c.machine}\u0000${c.from}\u0000${c.to}`, c.count]));
    this.history.push({ at, counts: now });
    while (this.history.length > 2 && at - this.history[1]!.at >= this.windowMs) this.history.shift();
    const oldest = this.history[0]!;
    const seconds = (at - oldest.at) / 1000;
    if (seconds <= 0) return [];
    const rates: MachinesUpdate['rates'] = [];
    for (const [key, count] of now) {
      const delta = count - (oldest.counts.get(key) ?? 0);
      if (delta <= 0) continue;
      const [machine, from, to] = key.split('\u0000') as [string, string, string];
      rates.push({ machine, from, to, perSecond: Math.round((delta / seconds) * 10) / 10 });
    }
    return rates;
  }
}

/** One open stream: the content it was last sent (`at` aside) and when it was last written to. */
interface Client {
  sent: string;
  wroteAt: number;
}

const contentOf = ({ at: _at, ...content }: MachinesUpdate) => JSON.stringify(content);

export class MachineEvents {
  private readonly clients = new Map<ServerResponse, Client>();
  private rates = new RateTracker();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly worker: RestWorker,
    private readonly intervalMs = 250,
  ) {}

  /** Takes over the response: SSE headers, the current state at once, then updates until it closes. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    if (this.closed) {
      // the server is closing: a stream opened now (a page reconnecting) would hold the close up for as
      // long as the page stays open; the page tries again after `retry`
      res.end('retry: 2000\n\n');
      return;
    }
    res.write('retry: 2000\n\n');
    const client: Client = { sent: '', wroteAt: 0 };
    this.clients.set(res, client);
    res.on('close', () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stopTimer();
    });
    const update = this.read();
    this.send(res, client, contentOf(update), JSON.stringify(update));
    this.timer ??= setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Ends every stream (the server is closing); later ones end at once. */
  close(): void {
    this.closed = true;
    this.stopTimer();
    for (const res of this.clients.keys()) res.end();
    this.clients.clear();
  }

  read(): MachinesUpdate {
    const at = Date.now();
    const counts = this.worker.transitionCounter.counts();
    const totals: Record<string, number> = {};
    for (const c of counts) totals[c.machine] = (totals[c.machine] ?? 0) + c.count;
    return { at, states: liveStates(this.worker), rates: this.rates.update(at, counts), totals };
  }

  private tick(): void {
    const update = this.read();
    const content = contentOf(update);
    let data: string | undefined;
    for (const [res, client] of this.clients) {
      // A client that reads slower than updates come (a stalled tab, a paused `curl | less`) gets none
      // until it has caught up, then the latest: each update is the whole picture, so nothing is lost,
      // and what the worker buffers for it stays bounded.
      if (res.writableNeedDrain) continue;
      if (client.sent !== content) this.send(res, client, content, (data ??= JSON.stringify(update)));
      else if (Date.now() - client.wroteAt > 15_000) {
        res.write(': keep-alive\n\n');
        client.wroteAt = Date.now();
      }
    }
  }

  private send(res: ServerResponse, client: Client, content: string, data: string): void {
    res.write(`event: machines\ndata: ${data}\n\n`);
    client.sent = content;
    client.wroteAt = Date.now();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    // the next client's rates start from its own readings, not from one taken before nobody watched
    this.rates = new RateTracker();
  }
}
