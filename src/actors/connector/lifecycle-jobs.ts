/**
 * The connector machine's effects start work that takes time (start, restart, halt); the machine
 * changes state at once, the work runs here, one job after another, and each job ends by sending the
 * machine its answer (STARTED, START_FAILED, HALTED). One queue instead of flags: a halt requested
 * while the connector starts waits for that start, and the start, seeing the machine no longer
 * `starting`, gives up at its next step.
 */
const ignore = () => undefined;

export class LifecycleJobs {
  private all: Promise<void> = Promise.resolve();
  /** The last job an operator's request started, with everything queued before it. */
  private byOperator: Promise<void> = Promise.resolve();

  /** Runs `step` after every job queued before it. The answer rejects when the step throws. */
  run(step: () => Promise<void>, options: { byOperator: boolean }): Promise<void> {
    const run = this.all.then(step);
    this.all = run.catch(ignore);
    if (options.byOperator) this.byOperator = this.all;
    return run;
  }

  /** Settles once every job queued so far has. */
  idle(): Promise<void> {
    return this.all;
  }

  /**
   * Settles once every job an operator started has. Shutdown waits for these, so nothing they start
   * outlives it, but not for the worker's own first start alone, which it stops under way instead.
   */
  operatorIdle(): Promise<void> {
    return this.byOperator;
  }
}
