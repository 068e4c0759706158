/**
 * A SinkTaskContext for driving a task directly in a test, as the runtime would: it hands the task its
 * props and collects what the task reports through `errantRecordReporter()`.
 */
import type { SinkRecord } from '../connect/sink-record.js';
import type { SinkTaskContext } from '../connect/sink-task.js';

const NEVER_ABORTED = new AbortController().signal;

export interface ErrantReport {
  readonly record: SinkRecord;
  readonly message: string;
}

export function testTaskContext(props: Readonly<Record<string, string>>): {
  context: SinkTaskContext;
  errant: ErrantReport[];
} {
  const errant: ErrantReport[] = [];
  const context: SinkTaskContext = {
    configs: () => props,
    assignment: () => [],
    errantRecordReporter: () => (record, error) =>
      errant.push({ record, message: error instanceof Error ? error.message : String(error) }),
    timeout: () => undefined,
    abortSignal: () => NEVER_ABORTED,
  };
  return { context, errant };
}
