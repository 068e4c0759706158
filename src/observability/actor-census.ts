/**
 * How many live actors of each machine are in each state right now: an XState `inspect` hook for the
 * live view (`GET /machines`). Batch actors come and go per batch, so an actor is forgotten as soon as
 * it stops or reaches a final state; the cost is a Map update per snapshot, never per record.
 */
import type { AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { batchStateName, type BatchSnapshot } from '../machines/batch.js';
import { stateValueName } from './transition-counter.js';

export interface ActorCensus {
  readonly inspect: (event: InspectionEvent) => void;
  /** The same for a batch actor created without `inspect`, from each of its snapshots. */
  observeBatch(actor: object, snapshot: BatchSnapshot): void;
  /** machine id → state name → live actors in it. */
  counts(): Record<string, Record<string, number>>;
}

function isMachineSnapshot(snapshot: unknown): snapshot is AnyMachineSnapshot {
  return typeof snapshot === 'object' && snapshot !== null && 'machine' in snapshot && 'value' in snapshot;
}

/**
 * An actor that failed (an effect threw) or was stopped before a final state says so in no snapshot a
 * batch observer or the `inspect` hook sees: its current snapshot does. Without this check such an
 * actor stayed in its last state on /machines and in /metrics for the life of the worker.
 */
function ended(actor: object): boolean {
  const read = (actor as { getSnapshot?: () => { status?: unknown } }).getSnapshot;
  return typeof read === 'function' && read.call(actor).status !== 'active';
}

export function createActorCensus(): ActorCensus {
  const live = new Map<object, { machine: string; state: string }>();
  return {
    inspect(event) {
      if (event.type !== '@xstate.snapshot' || !isMachineSnapshot(event.snapshot)) return;
      const snapshot = event.snapshot;
      if (snapshot.status !== 'active') {
        live.delete(event.actorRef);
        return;
      }
      const machine = snapshot.machine.id;
      const state =
        machine === 'batch'
          ? batchStateName(snapshot as unknown as BatchSnapshot)
          : stateValueName(snapshot.value);
      live.set(event.actorRef, { machine, state });
    },
    observeBatch(actor, snapshot) {
      if (snapshot.status !== 'active') live.delete(actor);
      else live.set(actor, { machine: 'batch', state: batchStateName(snapshot) });
    },
    counts() {
      const out: Record<string, Record<string, number>> = {};
      for (const [actor, { machine, state }] of live) {
        if (ended(actor)) {
          live.delete(actor);
          continue;
        }
        const byState = (out[machine] ??= {});
        byState[state] = (byState[state] ?? 0) + 1;
      }
      return out;
    },
  };
}
