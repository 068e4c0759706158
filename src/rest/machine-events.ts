/**
 * `GET /machines/events`: Server-Sent Events with live actors per state and transitions per second for
 * the batch, task and connector machines. One timer for all clients, at most 4 updates a second, and
 * an update only when something changed (a keep-alive comment every 15 s otherwise), so an open page
 * costs the worker next to nothing.
 */
import type { ServerResponse } from 'node:http';
import { stateValueName } from '../observability/transition-counter.js';
import type { RestWorker } from './worker-view.js';

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

export class MachineEvents {
  private readonly clients = new Set<ServerResponse>();
  private readonly rates = new RateTracker();
  private timer: NodeJS.Timeout | undefined;
  private lastSent = '';
  private lastWrite = 0;

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
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    res.on('close', () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stopTimer();
    });
    this.write(res, JSON.stringify(this.read()));
    this.timer ??= setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    this.stopTimer();
    for (const res of this.clients) res.end();
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
    const { at: _at, ...content } = update;
    const key = JSON.stringify(content);
    if (key !== this.lastSent) {
      this.lastSent = key;
      const data = JSON.stringify(update);
      for (const res of this.clients) this.write(res, data);
    } else if (Date.now() - this.lastWrite > 15_000) {
      for (const res of this.clients) res.write(': keep-alive\n\n');
      this.lastWrite = Date.now();
    }
  }

  private write(res: ServerResponse, data: string): void {
    res.write(`event: machines\ndata: ${data}\n\n`);
    this.lastWrite = Date.now();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
