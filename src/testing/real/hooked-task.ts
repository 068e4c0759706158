/**
 * The kit's injection hook, inside the worker process `checkConnector` starts: a SinkTask that wraps
 * the connector's own task (never its code) and, for the one put that claims the armed command (see
 * control.ts), makes the fault happen at a precise point: before the task sees the batch (retriable,
 * fatal), half-way through it, after put() and preCommit() returned but before the runtime can
 * ACCEPT or commit, or slower than the record locks. Every other put passes straight through.
 */
import { loadConnectorModule, resolveConnectorModule } from '../../connect/connector-module.js';
import { ConnectError, RetriableError } from '../../connect/errors.js';
import type { SinkRecord, TopicPartition, TopicPartitionOffset } from '../../connect/sink-record.js';
import { SinkTask } from '../../connect/sink-task.js';
import { importModule } from '../../pool/import-module.js';
import { CONTROL_ENV, INNER_CLASS_ENV, claimCommand, sendSignal, type PutCommand } from './control.js';

/** Until the process is killed: the parent kills it as soon as it reads the signal. */
const hang = (): Promise<never> => new Promise<never>(() => undefined);

const coordinates = (records: readonly SinkRecord[]) =>
  records.map((r) => [r.topic, r.partition, r.offset] as const);

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      { once: true },
    );
  });
}

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new ConnectError(`the check hook runs only in a worker started by sharesink check (${name} unset)`);
  return value;
}

export class HookedTask extends SinkTask {
  #inner: SinkTask | undefined;
  /** A command claimed by put() whose fault happens at the end of preCommit(). */
  #afterPut: PutCommand | undefined;

  version(): string {
    return this.#inner?.version() ?? 'sharesink-check-hook';
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const module = await loadConnectorModule(resolveConnectorModule(env(INNER_CLASS_ENV)), importModule);
    this.#inner = new module.task();
    this.#inner.initialize(this.context);
    await this.#inner.start(props);
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const inner = this.#task();
    const dir = env(CONTROL_ENV);
    const command = records.length > 0 ? claimCommand(dir) : undefined;
    if (command === undefined) return inner.put(records);
    const signal = (extra: { aborted?: boolean } = {}) =>
      sendSignal(dir, { seq: command.seq, action: command.action, records: coordinates(records), ...extra });
    switch (command.action) {
      case 'retriable':
        signal();
        throw new RetriableError('sharesink check: injected retriable failure');
      case 'fatal':
        signal();
        throw new ConnectError('sharesink check: injected fatal failure');
      case 'mid-put':
        await inner.put(records.slice(0, Math.ceil(records.length / 2)));
        signal();
        return hang();
      case 'after-put':
        await inner.put(records);
        this.#afterPut = command; // fires once preCommit() returned too
        return;
      case 'during-commit':
        await inner.put(records);
        signal();
        return;
      case 'slow': {
        await inner.put(records);
        const aborted = await sleep(command.slowMs ?? 0, this.context.abortSignal());
        signal({ aborted });
        if (aborted) throw new RetriableError('sharesink check: slow put aborted by the runtime');
        return;
      }
    }
  }

  override async preCommit(
    offsets: readonly TopicPartitionOffset[],
  ): Promise<readonly TopicPartitionOffset[]> {
    const inner = this.#task();
    // a JavaScript task need not extend SinkTask: then preCommit is flush, as SinkTask's default
    const result =
      typeof inner.preCommit === 'function'
        ? await inner.preCommit(offsets)
        : (await inner.flush?.(offsets), offsets);
    const command = this.#afterPut;
    if (command !== undefined) {
      this.#afterPut = undefined;
      sendSignal(env(CONTROL_ENV), { seq: command.seq, action: command.action, records: [] });
      return hang();
    }
    return result;
  }

  override async flush(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    await this.#task().flush?.(offsets);
  }

  override async open(partitions: readonly TopicPartition[]): Promise<void> {
    await this.#task().open?.(partitions);
  }

  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    await this.#task().close?.(partitions);
  }

  async stop(): Promise<void> {
    await this.#inner?.stop();
  }

  #task(): SinkTask {
    if (this.#inner === undefined) throw new ConnectError('the check hook was used before start()');
    return this.#inner;
  }
}
