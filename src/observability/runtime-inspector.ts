/**
 * The one hook the runtime gives its actors: XState inspection for the connector and task machines,
 * and, for batch actors, a cheaper path fed from the batch's own snapshots (ADR 0011). Building
 * XState's inspection events costs a batch actor 3–11 µs of its 55–70 µs life, 6–9 % of a batch's
 * main-thread work (ADR 0011; a no-op hook costs the same), and a batch actor's transitions are fully
 * visible in its snapshots: the batch machine has no eventless transitions and no raised events, so
 * every event that moves it is one microstep that changes its state name. Batch actors are still
 * inspected the XState way while someone listens on the batch transition channel, whose messages name
 * the event.
 */
import type { InspectionEvent } from 'xstate';
import type { BatchSnapshot } from '../machines/batch.js';
import type { ActorCensus } from './actor-census.js';
import { batchTransitionChannel } from './channels.js';
import type { TransitionCounter } from './transition-counter.js';

/** A batch actor's snapshot, as its `next` observer sees it; `first` for the one it starts with. */
export type BatchSnapshotObserver = (actor: object, snapshot: BatchSnapshot, first: boolean) => void;

export type RuntimeInspector = ((event: InspectionEvent) => void) & {
  /** Feeds the same counts from a batch actor's snapshots, for batch actors created without `inspect`. */
  readonly observeBatch?: BatchSnapshotObserver;
};

export function createRuntimeInspector(
  transitions: TransitionCounter,
  census: ActorCensus,
): RuntimeInspector {
  const inspect = (event: InspectionEvent): void => {
    transitions.inspect(event);
    census.inspect(event);
  };
  const observeBatch: BatchSnapshotObserver = (actor, snapshot, first) => {
    transitions.observeBatch(actor, snapshot, first);
    census.observeBatch(actor, snapshot);
  };
  return Object.assign(inspect, { observeBatch });
}

/**
 * The inspect hook a new batch actor gets: none when its snapshots feed the counts instead (the
 * observer is returned then), the full hook while the batch transition channel has subscribers.
 */
export function batchInspection(inspect: RuntimeInspector | ((event: InspectionEvent) => void) | undefined): {
  inspect: ((event: InspectionEvent) => void) | undefined;
  observe: BatchSnapshotObserver | undefined;
} {
  const observe = (inspect as RuntimeInspector | undefined)?.observeBatch;
  if (observe === undefined || batchTransitionChannel.hasSubscribers) return { inspect, observe: undefined };
  return { inspect: undefined, observe };
}
