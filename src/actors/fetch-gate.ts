/**
 * Pause for a task runner that fetches in a loop: while the gate is closed, the next fetch waits.
 *
 * Share mode pauses this way rather than inside the runner: the ShareConsumer only sends ShareFetch
 * while a poll() waits, so holding poll() back stops fetching, while batches already acquired finish,
 * are acknowledged and keep their locks renewed (acknowledgements do not need a poll).
 */
import { ShareConsumer, type PollOptions, type ShareRecord } from '../kafka/share/share-consumer.js';

export class FetchGate {
  private paused = false;
  private released = false;
  private waiters: Array<() => void> = [];

  get isPaused(): boolean {
    return this.paused && !this.released;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  /** Opens the gate for good (the task is stopping): waiting fetches return at once. */
  release(): void {
    this.released = true;
    this.wake();
  }

  /** Resolves true when fetching may go on, false once the gate was released for a stop. */
  async whenOpen(): Promise<boolean> {
    while (this.paused && !this.released) await new Promise<void>((r) => this.waiters.push(r));
    return !this.released || !this.paused;
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}

/**
 * A ShareConsumer whose poll() waits while its gate is closed (and returns [] if the task stops).
 *
 * A ShareFetch already waiting on the broker when the gate closes can still answer with records: those
 * are released at once (another member, or this task after resume, gets them with the delivery count
 * the broker keeps) instead of being put after the operator paused the connector.
 */
export class GatedShareConsumer extends ShareConsumer {
  readonly gate = new FetchGate();
  /** Records acquired by a fetch that was under way when the gate closed, and released. */
  releasedWhilePaused = 0;

  override async poll(options?: PollOptions): Promise<ShareRecord[]> {
    for (;;) {
      if (!(await this.gate.whenOpen())) return [];
      const records = await super.poll(options);
      if (records.length === 0 || !this.gate.isPaused) return records;
      this.releasedWhilePaused += records.length;
      // the answer reports per partition and never rejects; a consumer closing meanwhile lets the locks lapse
      try {
        void this.acknowledge(records, 'release');
      } catch {
        /* closed: the broker releases the records when their locks expire */
      }
    }
  }
}
