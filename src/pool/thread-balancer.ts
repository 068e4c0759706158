/**
 * Which pool thread runs which put (ADR 0007).
 *
 * piscina's own balancer never puts an abortable task on a busy thread, because its abort terminates
 * the thread; every put here can be aborted, so with it a thread would only ever run one put, and an
 * I/O-bound sink would be capped at `pool.threads` puts in flight whatever `tasks.max` says. This
 * balancer lets a thread run up to `perThread` puts at once and records where each put went, so that
 * an abort can be sent to the right thread and the puts lost with a terminated thread are known.
 */
import { queueOptionsSymbol, type PiscinaTask } from 'piscina';
import type { Piscina } from 'piscina';

type PiscinaLoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>;

/** What a put carries under piscina's queue-options symbol (it is not sent to the thread). */
export interface PutTicket {
  readonly putId: number;
  readonly taskId: string;
}

/**
 * The fields of piscina's worker view that placement reads. Not `currentUsage`: piscina reports a
 * thread running one abortable task as infinitely busy; the puts placed here are counted here.
 */
export interface PlacementWorker {
  readonly id: number;
  readonly terminating: boolean;
  readonly destroyed: boolean;
}

export class ThreadBalancer {
  readonly #perThread: number;
  /** putId → thread it runs on, while it runs. */
  readonly #threadOf = new Map<number, number>();
  /** thread → putId → task id, while the puts run. */
  readonly #onThread = new Map<number, Map<number, string>>();

  /** With `oneThreadPerTask`: task id → the thread its puts run on while that thread lives. */
  readonly #home: Map<string, number> | undefined;

  constructor(perThread: number, oneThreadPerTask = false) {
    this.#perThread = perThread;
    this.#home = oneThreadPerTask ? new Map() : undefined;
  }

  /**
   * Chooses the least busy thread with room, and among equally busy ones prefers a thread where the
   * same task is not already putting: that task's instance there would make the put wait its turn
   * (one put at a time per instance) while another thread's instance could run it now. An idle
   * thread always wins, so a CPU-bound put gets a core of its own while one is free.
   */
  choose<W extends PlacementWorker>(ticket: PutTicket | undefined, workers: readonly W[]): W | null {
    if (this.#home === undefined || ticket === undefined) return this.#spread(ticket, workers);
    // one thread per task: its home thread while it lives and has room, else a new home
    const home = this.#home.get(ticket.taskId);
    for (const w of workers) {
      if (w.id !== home) continue;
      if (w.terminating || w.destroyed || this.countOn(w.id) >= this.#perThread) break;
      this.#place(ticket, w.id);
      return w;
    }
    const chosen = this.#spread(ticket, workers);
    if (chosen !== null) this.#home.set(ticket.taskId, chosen.id);
    return chosen;
  }

  #spread<W extends PlacementWorker>(ticket: PutTicket | undefined, workers: readonly W[]): W | null {
    let best: W | null = null;
    let bestScore = Number.POSITIVE_INFINITY;
    for (const w of workers) {
      const usage = this.countOn(w.id);
      if (w.terminating || w.destroyed || usage >= this.#perThread) continue;
      const busyWithTask = ticket !== undefined && this.#runsTask(w.id, ticket.taskId);
      // a thread already putting for this task counts as one put busier than it is
      const score = usage + (busyWithTask ? 1 : 0);
      if (score < bestScore) {
        best = w;
        bestScore = score;
        if (score === 0) break;
      }
    }
    if (best !== null && ticket !== undefined) this.#place(ticket, best.id);
    return best;
  }

  /** piscina's `loadBalancer` option. */
  readonly balancer: PiscinaLoadBalancer = (task: PiscinaTask, workers) =>
    this.choose(
      (task as unknown as Record<symbol, PutTicket | null>)[queueOptionsSymbol] ?? undefined,
      workers,
    );

  threadOf(putId: number): number | undefined {
    return this.#threadOf.get(putId);
  }

  /** Puts running on the thread now. */
  countOn(threadId: number): number {
    return this.#onThread.get(threadId)?.size ?? 0;
  }

  /** The put has settled, whichever way. */
  settled(putId: number): void {
    const threadId = this.#threadOf.get(putId);
    if (threadId === undefined) return;
    this.#threadOf.delete(putId);
    const puts = this.#onThread.get(threadId);
    puts?.delete(putId);
    if (puts?.size === 0) this.#onThread.delete(threadId);
  }

  #place(ticket: PutTicket, threadId: number): void {
    this.#threadOf.set(ticket.putId, threadId);
    let puts = this.#onThread.get(threadId);
    if (puts === undefined) this.#onThread.set(threadId, (puts = new Map()));
    puts.set(ticket.putId, ticket.taskId);
  }

  #runsTask(threadId: number, taskId: string): boolean {
    const puts = this.#onThread.get(threadId);
    if (puts === undefined) return false;
    for (const t of puts.values()) if (t === taskId) return true;
    return false;
  }
}
