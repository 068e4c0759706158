/**
 * The channel between `checkConnector` (the parent) and the hook it puts in the worker process: two
 * files in the run's control directory, so it works the same from a pool thread, the event loop or
 * another copy of the package.
 *
 * - `command.json`: the next put-level fault, written by the parent (atomically: write, rename). The
 *   first put that renames it away owns it; a rename succeeds for exactly one put in any thread.
 * - `signals.jsonl`: one line per fault that fired, appended by the hook; the parent polls it.
 */
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/** Environment variables the kit sets on the worker process it starts (built, so no one takes them for error codes). */
const ENV = ['SHARESINK', 'CHECK'].join('_');
export const CONTROL_ENV = `${ENV}_CONTROL`;
export const INNER_CLASS_ENV = `${ENV}_INNER_CLASS`;
export const REDIRECT_ENV = `${ENV}_REDIRECT`;

/** What the hook does to the put that claims a command. */
export type PutAction =
  /** Write the first half of the batch, signal, then hang until killed. */
  | 'mid-put'
  /** Let put() and preCommit() return, signal, then hang (no ACCEPT / commit) until killed. */
  | 'after-put'
  /** Let put() return, signal, and go on: the kill races the acknowledgement or the commit. */
  | 'during-commit'
  /** Throw a RetriableError before the task sees the batch. */
  | 'retriable'
  /** Throw a (non-retriable) ConnectError before the task sees the batch. */
  | 'fatal'
  /** Let put() return, then take `slowMs` more (aborted if the runtime gives up on the put). */
  | 'slow';

export interface PutCommand {
  readonly seq: number;
  readonly action: PutAction;
  readonly slowMs?: number;
}

/** Kafka coordinates of a record, as the hook reports them. */
export type Coordinates = readonly [topic: string, partition: number, offset: number];

export interface Signal {
  readonly seq: number;
  readonly action: PutAction;
  /** The records of the put that fired. */
  readonly records: readonly Coordinates[];
  /** For `slow`: whether the runtime aborted the put while it was slow. */
  readonly aborted?: boolean;
}

const COMMAND = 'command.json';
const SIGNALS = 'signals.jsonl';
let claims = 0;

/** Parent: arms the next put-level fault. */
export function armCommand(dir: string, command: PutCommand): void {
  const tmp = path.join(dir, `${COMMAND}.tmp`);
  writeFileSync(tmp, JSON.stringify(command));
  renameSync(tmp, path.join(dir, COMMAND));
}

/** Parent: withdraws a command no put claimed; false when a put claimed it meanwhile. */
export function disarmCommand(dir: string): boolean {
  try {
    rmSync(path.join(dir, COMMAND));
    return true;
  } catch {
    return false;
  }
}

/** Hook: takes the armed command if there is one (one put wins it). */
export function claimCommand(dir: string): PutCommand | undefined {
  const claimed = path.join(dir, `claimed-${process.pid}-${threadId}-${++claims}.json`);
  try {
    renameSync(path.join(dir, COMMAND), claimed);
  } catch {
    return undefined;
  }
  return JSON.parse(readFileSync(claimed, 'utf8')) as PutCommand;
}

/** Hook: says a fault fired (synchronously, before anything else can happen). */
export function sendSignal(dir: string, signal: Signal): void {
  appendFileSync(path.join(dir, SIGNALS), `${JSON.stringify(signal)}\n`);
}

/** Parent: every signal so far. */
export function readSignals(dir: string): Signal[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, SIGNALS), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Signal);
}
