/**
 * The state machines sharesink runs, as the public API offers them: to draw (Mermaid, Graphviz). Their
 * xstate types stay inside the package: under `exactOptionalPropertyTypes` xstate's own declarations do
 * not compile, so a user's `skipLibCheck: false` build must never reach them through sharesink's types.
 */
import type { AnyStateMachine } from 'xstate';
import { batchMachine as batch } from './machines/batch.js';
import { connectorMachine as connector } from './machines/connector.js';
import { toDot as dot, toMermaid as mermaid } from './machines/diagram.js';
import { taskMachine as task } from './machines/task.js';

declare const MACHINE: unique symbol;

/** One of the state machines sharesink runs (`batch`, `task`, `connector`); pass it to toMermaid / toDot. */
export interface MachineDefinition {
  /** The machine's id: `batch`, `task` or `connector`. */
  readonly id: string;
  readonly [MACHINE]: true;
}

const definition = (machine: AnyStateMachine) => machine as unknown as MachineDefinition;

/** A fetched batch: puts, retries, lock renewals and its acknowledgement (docs/machines.md). */
export const batchMachine: MachineDefinition = definition(batch);
/** A task: starting, running, paused, failed, stopping (docs/machines.md). */
export const taskMachine: MachineDefinition = definition(task);
/** A connector and its tasks (docs/machines.md). */
export const connectorMachine: MachineDefinition = definition(connector);

/** The machine as a Mermaid `stateDiagram-v2`. */
export function toMermaid(machine: MachineDefinition): string {
  return mermaid(machine as unknown as AnyStateMachine);
}

/** The machine as a Graphviz `digraph`. */
export function toDot(machine: MachineDefinition): string {
  return dot(machine as unknown as AnyStateMachine);
}
