/**
 * An XState `inspect` hook that counts transitions by (machine, from → to) and publishes batch
 * transitions on `sharesink:batch:transition`. Pass the same counter's `inspect` to every actor the
 * runtime creates (`createActor(logic, { inspect: counter.inspect })`).
 *
 * Cost is per transition of a machine (a batch has a handful), never per record: counts live in
 * nested Maps keyed by the state names, so no key string is built per transition.
 */
import type { AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { batchStateName, type BatchSnapshot } from '../machines/batch.js';
import { batchTransitionChannel, type BatchTransitionMessage } from './channels.js';
import type { TransitionCount } from './transition-count.js';

export type { TransitionCount } from './transition-count.js';

export interface TransitionCounter {
  readonly inspect: (event: InspectionEvent) => void;
  /**
   * The same counting for a batch actor created without `inspect`, from its snapshots: `first` for the
   * one it starts with, then every later one; a snapshot whose state name did not change counts nothing.
   */
  observeBatch(actor: object, snapshot: BatchSnapshot, first: boolean): void;
  /** Every (machine, from, to) seen so far with its count, sorted for stable output. */
  counts(): TransitionCount[];
  count(machine: string, from: string, to: string): number;
  reset(): void;
}

const INITIAL = '(initial)';

function isMachineSnapshot(snapshot: unknown): snapshot is AnyMachineSnapshot {
  return typeof snapshot === 'object' && snapshot !== null && 'machine' in snapshot && 'value' in snapshot;
}

/** `a`, `a.b`, or for parallel regions `a.(x.y,z.w)`. */
export function stateValueName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const parts = Object.entries(value as Record<string, unknown>).map(([key, child]) => {
    const inner = stateValueName(child);
    return inner === '' ? key : `${key}.${inner}`;
  });
  return parts.length === 1 ? (parts[0] ?? '') : `(${parts.join(',')})`;
}

function nameOf(snapshot: AnyMachineSnapshot): string {
  return snapshot.machine.id === 'batch'
    ? batchStateName(snapshot as unknown as BatchSnapshot)
    : stateValueName(snapshot.value);
}

export function createTransitionCounter(): TransitionCounter {
  // machine → from → to → count
  let table = new Map<string, Map<string, Map<string, number>>>();
  // The last state seen per actor; a WeakMap so finished batch actors are collected.
  const last = new WeakMap<object, string>();

  const bump = (machine: string, from: string, to: string) => {
    let byFrom = table.get(machine);
    if (byFrom === undefined) table.set(machine, (byFrom = new Map()));
    let byTo = byFrom.get(from);
    if (byTo === undefined) byFrom.set(from, (byTo = new Map()));
    byTo.set(to, (byTo.get(to) ?? 0) + 1);
  };

  const inspect = (event: InspectionEvent): void => {
    if (event.type === '@xstate.snapshot') {
      // The initial snapshot has no microstep; remember it as the starting point.
      if (event.event.type === 'xstate.init' && isMachineSnapshot(event.snapshot)) {
        last.set(event.actorRef, nameOf(event.snapshot));
      }
      return;
    }
    if (event.type !== '@xstate.microstep' || event._transitions.length === 0) return;
    if (!isMachineSnapshot(event.snapshot)) return;
    const machine = event.snapshot.machine.id;
    const from = last.get(event.actorRef) ?? INITIAL;
    const to = nameOf(event.snapshot);
    last.set(event.actorRef, to);
    bump(machine, from, to);
    if (machine === 'batch' && batchTransitionChannel.hasSubscribers) {
      const message: BatchTransitionMessage = {
        batchId: String((event.snapshot.context as { batchId?: unknown }).batchId),
        from,
        to,
        event: event.event.type,
      };
      batchTransitionChannel.publish(message);
    }
  };

  const observeBatch = (actor: object, snapshot: BatchSnapshot, first: boolean): void => {
    const to = batchStateName(snapshot);
    const from = last.get(actor);
    last.set(actor, to);
    if (first || from === undefined || from === to) return;
    bump('batch', from, to);
  };

  return {
    inspect,
    observeBatch,
    counts() {
      const out: TransitionCount[] = [];
      for (const [machine, byFrom] of table) {
        for (const [from, byTo] of byFrom) {
          for (const [to, count] of byTo) out.push({ machine, from, to, count });
        }
      }
      const key = (c: TransitionCount) => `${c.machine}\u0000${c.from}\u0000${c.to}`;
      return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    },
    count(machine, from, to) {
      return table.get(machine)?.get(from)?.get(to) ?? 0;
    },
    reset() {
      table = new Map();
    },
  };
}
