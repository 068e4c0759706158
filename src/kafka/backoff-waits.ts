/**
 * The waits of a retry loop, ended early all at once by the owner's close: a loop that backs off must
 * not keep a timer, nor fail and log, after the client it belongs to closed.
 */
export class BackoffWaits {
  readonly #wakes = new Set<() => void>();

  /** Resolves after `ms`, or at once when {@link wakeAll} comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakes.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#wakes.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.#wakes]) wake();
  }
}
