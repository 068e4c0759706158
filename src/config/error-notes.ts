/**
 * `errors.retry.timeout`, which sharesink reads with a wider meaning than Connect, said once per
 * connector. Connect files commonly carry `errors.retry.timeout=300000` (the usual error-handling
 * recipe), meant for conversions and transforms: Connect retries a `put()` that throws a
 * RetriableException until it succeeds, whatever this says. Here it bounds `put()` retries too
 * (docs/classic-mode.md, ADR 0004), so the same file gives up on a batch after a sink outage of that
 * length, where Connect would have kept retrying; the person running it should be told.
 */
import type { GroupProtocol } from './types.js';

export function errorHandlingNotes(values: Readonly<Record<string, unknown>>, mode: GroupProtocol): string[] {
  const notes: string[] = [];
  const tolerance = values['errors.tolerance'];
  const dlq = (values['errors.deadletterqueue.topic.name'] as string | null | undefined) ?? '';
  const timeout = values['errors.retry.timeout'];
  if (typeof timeout === 'number' && timeout > 0) {
    const after =
      mode === 'share'
        ? 'RELEASEd and delivered again with delivery count + 1, until the group’s share.delivery.count.limit archives (or dead-letters) it'
        : tolerance === 'all'
          ? `skipped${dlq === '' ? '' : ` (written to ${dlq})`} and committed`
          : 'a failure that stops the task';
    notes.push(
      `errors.retry.timeout=${timeout}: here it bounds the retries of a put() that fails retriably (Connect applies it only to conversions and transforms, and retries such a put() until it succeeds): a batch whose put() still fails after ${timeout} ms is ${after}. Set errors.retry.timeout=0 to retry until the put succeeds, as Connect does`,
    );
  }
  return notes;
}
