/**
 * What the live view draws, read from a machine definition (public StateNode fields, as
 * machines/diagram.ts does): every state node as the definition nests them (compound states and the
 * regions of a parallel state as containers), every transition of every state's `on` (targetless ones
 * as loops, because they run actions the operator may want to see counted), and the initial
 * pseudo-state of every container. No geometry here: machine-layout.ts places it.
 *
 * Nodes are keyed by the names the runtime uses in its counters (`up.running` for a nested state, the
 * bare key inside a parallel state, as `batchStateName` reports `putting`), so the page can match
 * live counts to nodes without knowing the machines.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export type StateKind = 'atomic' | 'final' | 'compound' | 'parallel' | 'region';

export interface GraphState {
  /** The name the page and the counters use; unique within the machine. */
  readonly key: string;
  /** The state's own key, shown on its box. */
  readonly label: string;
  readonly kind: StateKind;
  /** Key of the enclosing state; undefined at the top level. */
  readonly parent: string | undefined;
  /** Keys of the nested states, in definition order. */
  readonly children: readonly string[];
  /** Key of the child a transition into this container enters; undefined for atomic and parallel states. */
  readonly initial: string | undefined;
}

export interface GraphEdge {
  /** Key of the state the transition is defined on (a container when the container defines it). */
  readonly from: string;
  /** Key of the target; equal to `from` for a targetless transition. */
  readonly to: string;
  /** Event types, with the guard in brackets when one decides, that take this edge. */
  readonly events: readonly string[];
  /** No target: actions only, the state is not left. */
  readonly internal: boolean;
}

export interface MachineGraph {
  readonly machine: string;
  /** Key of the top-level initial state. */
  readonly initial: string;
  /** Every state, parents before children. */
  readonly states: readonly GraphState[];
  /** One edge per (from, to), events merged. */
  readonly edges: readonly GraphEdge[];
}

const childrenOf = (n: AnyStateNode) => Object.values(n.states) as AnyStateNode[];

function kindOf(node: AnyStateNode): StateKind {
  if (node.type === 'final') return 'final';
  if (node.type === 'parallel') return 'parallel';
  if (childrenOf(node).length === 0) return 'atomic';
  return node.parent?.type === 'parallel' ? 'region' : 'compound';
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'guard';
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guard';
}

/**
 * The runtime's name for a state: its path below the root, or, inside a parallel state, the path below
 * the region (`batchStateName` reports the work region's leaf alone). Falls back to the full path when
 * two states would share a name.
 */
export function stateKeys(machine: AnyStateMachine): Map<AnyStateNode, string> {
  const keys = new Map<AnyStateNode, string>();
  const walk = (node: AnyStateNode, prefix: string[]) => {
    for (const child of childrenOf(node)) {
      const own =
        node.type === 'parallel' || node.parent?.type === 'parallel' ? [child.key] : [...prefix, child.key];
      keys.set(child, own.join('.'));
      walk(child, own);
    }
  };
  walk(machine.root, []);
  const seen = new Map<string, number>();
  for (const key of keys.values()) seen.set(key, (seen.get(key) ?? 0) + 1);
  for (const [node, key] of keys) if ((seen.get(key) ?? 0) > 1) keys.set(node, node.path.join('.'));
  return keys;
}

export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const keys = stateKeys(machine);
  const states: GraphState[] = [];
  const edges = new Map<string, { from: string; to: string; events: string[]; internal: boolean }>();
  const visit = (node: AnyStateNode) => {
    for (const child of childrenOf(node)) {
      const kind = kindOf(child);
      const initial = kind === 'compound' || kind === 'region' ? child.initial?.target[0] : undefined;
      states.push({
        key: keys.get(child)!,
        label: child.key,
        kind,
        parent: node === machine.root ? undefined : keys.get(node),
        children: childrenOf(child).map((c) => keys.get(c)!),
        initial: initial === undefined ? undefined : keys.get(initial),
      });
      const from = keys.get(child)!;
      for (const [eventType, transitions] of child.transitions) {
        for (const t of transitions) {
          const guard = guardName(t.guard);
          const label = guard === undefined ? eventType : `${eventType} [${guard}]`;
          const targets = t.target?.length ? t.target : [undefined];
          for (const target of targets) {
            const to = target === undefined ? from : keys.get(target);
            if (to === undefined) continue; // the root itself: no box to point at
            const id = `${from}\u0000${to}`;
            const e = edges.get(id) ?? { from, to, events: [], internal: target === undefined };
            if (!e.events.includes(label)) e.events.push(label);
            edges.set(id, e);
          }
        }
      }
      visit(child);
    }
  };
  visit(machine.root);
  const initial = machine.root.initial?.target[0];
  return {
    machine: machine.id,
    initial: initial === undefined ? states[0]!.key : keys.get(initial)!,
    states,
    edges: [...edges.values()],
  };
}
