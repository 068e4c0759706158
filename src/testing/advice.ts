/**
 * "How to fix": for each kind of violation in a counter-example, what a connector author changes.
 * A violation names which guarantee failed and for which record; this says what the guarantee asks
 * of a task, once per kind.
 */

export interface AdviceContext {
  readonly callTimeoutMs: number;
  /** An id of the run, to show what observe() keys look like. */
  readonly sampleId: string;
}

const ADVICE: readonly { readonly test: RegExp; readonly text: (c: AdviceContext) => string }[] = [
  {
    test: /^lost: /,
    text: () =>
      'lost: the broker is told ACCEPT as soon as put() and preCommit() return, and never delivers that ' +
      'record again. Write it before put() returns (or in flush()/preCommit(), which run right after every ' +
      'put), not later or only in stop(), and write a redelivered record (deliveryCount > 1) again rather ' +
      'than skipping it: only what is in the downstream system counts.',
  },
  {
    test: /^duplicate: /,
    text: () =>
      'duplicate: redeliveries (crashes, lost replies, expired locks) pass the same record to put() again. ' +
      'Make the write an upsert, or keyed on topic/partition/offset, so a second write changes nothing; ' +
      'more writes than put() calls means one put() writes it twice. A sink that is at-least-once by design ' +
      'should leave idempotent off.',
  },
  {
    test: /^phantom: /,
    text: (c) =>
      'phantom: observe() reports ids never passed to put() in this run. Give each run its own table, file ' +
      'or key space (props: (run) => …, emptied in cleanup()), and name records as recordId() does: ' +
      `topic/partition/offset, e.g. ${c.sampleId}.`,
  },
  {
    test: /^rejected: /,
    text: () =>
      'rejected: a REJECTed record is archived (or dead-lettered) and never written, and every generated ' +
      'record is writable. When the failure is transient (a connection reset, a timeout, the downstream ' +
      'unavailable), throw RetriableError so the record is redelivered; throw ConnectError or report a ' +
      'record errant only when it can never be written. If your task refuses some generated values on ' +
      'purpose, shape them with schedule.value or mapValue, or set allowRejects: true.',
  },
  {
    test: /^the run stopped: .* did not settle within/,
    text: (c) =>
      `hung: a task call did not settle within callTimeoutMs (${c.callTimeoutMs} ms). A put() that never ` +
      'ends holds its records until the runtime gives up on it, and costs its worker thread: give your I/O ' +
      'timeouts and honour this.context.abortSignal(), or raise callTimeoutMs if your downstream is this slow.',
  },
  {
    test: /^observe\(\) threw: /,
    text: () =>
      'observe() threw: observe() runs after every run, also one in which the task never started or wrote ' +
      'nothing (every delivery failed before put()): return an empty Map when the table or file does not ' +
      'exist yet.',
  },
];

/** One line of advice per kind of violation present, in the order above. */
export function adviceFor(violations: readonly string[], context: AdviceContext): string[] {
  return ADVICE.filter((a) => violations.some((v) => a.test.test(v))).map((a) => a.text(context));
}
