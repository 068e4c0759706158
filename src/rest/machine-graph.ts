/**
 * A state graph for the live view, read from a machine definition (public StateNode fields, as
 * machines/diagram.ts does), with nodes named as the runtime names states in its counters
 * (`up.running` for a nested state, the `work` region's leaf for the batch machine's parallel
 * `active` state, whose `lease` region shows as a `/renewing` suffix on the counts), and a layered
 * layout: edges that close a cycle are set aside, a node's column is the longest path to it from the
 * initial state, and each column is ordered by where its predecessors sit, which keeps most edges
 * pointing right and few of them crossing.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export interface GraphNode {
  /** The state name the counters use. */
  readonly name: string;
  readonly final: boolean;
  readonly x: number;
  readonly y: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  /** Event types (with guard names) that take this edge. */
  readonly events: readonly string[];
}

export interface MachineGraph {
  readonly machine: string;
  readonly initial: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly width: number;
  readonly height: number;
}

export const NODE_W = 150;
export const NODE_H = 46;
const COL_GAP = 70;
const ROW_GAP = 28;
const MARGIN = 20;
/** Room above and below for edges bent around the nodes. */
const BEND_ROOM = 50;

const children = (n: AnyStateNode) => Object.values(n.states) as AnyStateNode[];

/** The leaves drawn for a node: itself, or its descendants (a parallel node: its first region only). */
function leavesOf(node: AnyStateNode): AnyStateNode[] {
  const kids = children(node);
  if (kids.length === 0) return [node];
  if (node.type === 'parallel') return leavesOf(kids[0]!);
  return kids.flatMap(leavesOf);
}

/** Where a transition into `node` lands: the initial leaf. */
function entryLeaf(node: AnyStateNode): AnyStateNode {
  let cur = node;
  for (;;) {
    const kids = children(cur);
    if (kids.length === 0) return cur;
    if (cur.type === 'parallel') cur = kids[0]!;
    else cur = (cur.initial?.target[0] as AnyStateNode | undefined) ?? kids[0]!;
  }
}

function nameOf(leaf: AnyStateNode): string {
  // inside a parallel state the runtime names the state by the first region's leaf alone
  for (let n = leaf.parent; n !== undefined; n = n.parent) if (n.type === 'parallel') return leaf.key;
  return leaf.path.join('.');
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guard';
}

export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const leaves = leavesOf(machine.root);
  const names = new Map(leaves.map((l) => [l, nameOf(l)]));
  const edges = new Map<string, { from: string; to: string; events: string[] }>();
  const visit = (node: AnyStateNode) => {
    const sources = leavesOf(node).filter((l) => names.has(l));
    for (const [eventType, transitions] of node.transitions) {
      for (const t of transitions) {
        const guard = guardName(t.guard);
        const label = guard === undefined ? eventType : `${eventType} [${guard}]`;
        for (const target of t.target ?? []) {
          const to = names.get(entryLeaf(target));
          if (to === undefined) continue;
          for (const s of sources) {
            const from = names.get(s)!;
            if (from === to) continue;
            const key = `${from}\u0000${to}`;
            const e = edges.get(key) ?? { from, to, events: [] };
            if (!e.events.includes(label)) e.events.push(label);
            edges.set(key, e);
          }
        }
      }
    }
    for (const child of children(node)) visit(child);
  };
  visit(machine.root);

  const initial = names.get(entryLeaf(machine.root))!;
  const order = leaves.map((l) => names.get(l)!);
  const columns = layerColumns(initial, order, [...edges.values()]);
  const finals = new Set(leaves.filter((l) => l.type === 'final').map((l) => names.get(l)!));
  const nodes: GraphNode[] = [];
  const tallest = Math.max(...columns.map((c) => c?.length ?? 0));
  const colHeight = (n: number) => n * NODE_H + (n - 1) * ROW_GAP;
  columns.forEach((col, x) => {
    if (col === undefined) return;
    const offset = (colHeight(tallest) - colHeight(col.length)) / 2;
    col.forEach((name, y) =>
      nodes.push({
        name,
        final: finals.has(name),
        x: MARGIN + x * (NODE_W + COL_GAP),
        y: BEND_ROOM + offset + y * (NODE_H + ROW_GAP),
      }),
    );
  });
  return {
    machine: machine.id,
    initial,
    nodes,
    edges: [...edges.values()],
    width: MARGIN * 2 + columns.length * NODE_W + (columns.length - 1) * COL_GAP,
    height: BEND_ROOM * 2 + colHeight(tallest),
  };
}

/**
 * Columns of node names. Back edges (found by a depth-first walk from the initial state) are ignored,
 * so the rest is acyclic and a node's column is its longest distance from the initial state; nodes
 * the walk does not reach go last.
 */
function layerColumns(initial: string, order: readonly string[], edges: readonly GraphEdge[]): string[][] {
  const out = new Map<string, string[]>(order.map((n) => [n, []]));
  for (const e of edges) out.get(e.from)?.push(e.to);
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const walk = (n: string) => {
    state.set(n, 'open');
    for (const to of out.get(n) ?? []) {
      if (state.get(to) === 'open') back.add(`${n}\u0000${to}`);
      else if (!state.has(to)) walk(to);
    }
    state.set(n, 'done');
  };
  walk(initial);
  const forward = edges.filter((e) => !back.has(`${e.from}\u0000${e.to}`) && state.has(e.from));
  const rank = new Map<string, number>([[initial, 0]]);
  // longest path over the acyclic part: relax until nothing changes (a handful of states)
  for (let changed = true; changed;) {
    changed = false;
    for (const e of forward) {
      const r = (rank.get(e.from) ?? 0) + 1;
      if (rank.has(e.from) && r > (rank.get(e.to) ?? -1)) {
        rank.set(e.to, r);
        changed = true;
      }
    }
  }
  const last = Math.max(0, ...rank.values()) + 1;
  const columns: string[][] = [];
  for (const n of order) (columns[rank.get(n) ?? last] ??= []).push(n);
  const dense = columns.filter((c) => c !== undefined);
  // order each column by the mean row of its predecessors in earlier columns
  const row = new Map<string, number>();
  dense.forEach((col, x) => {
    if (x > 0) {
      const weight = (n: string) => {
        const rows = forward.filter((e) => e.to === n && row.has(e.from)).map((e) => row.get(e.from)!);
        return rows.length === 0 ? Number.POSITIVE_INFINITY : rows.reduce((a, b) => a + b, 0) / rows.length;
      };
      col.sort((a, b) => weight(a) - weight(b));
    }
    col.forEach((n, y) => row.set(n, y));
  });
  return dense;
}
