/**
 * Mermaid `stateDiagram-v2` text generated from a machine definition, so diagrams in the docs and from
 * `sharesink diagram` can never drift from the code. Walks `machine.root`; no XState internals beyond
 * the public StateNode fields.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

interface Edge {
  from: AnyStateNode;
  to: AnyStateNode;
  label: string;
}

const idOf = (node: AnyStateNode) => node.id.replace(/[^A-Za-z0-9_]/g, '_');

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'guard';
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guard';
}

function ancestors(node: AnyStateNode): AnyStateNode[] {
  const chain: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n !== undefined; n = n.parent) chain.unshift(n);
  return chain;
}

/** The innermost compound node containing both ends; mermaid cannot draw an edge inside a parallel node. */
function commonScope(a: AnyStateNode, b: AnyStateNode): AnyStateNode {
  const pa = ancestors(a);
  const pb = ancestors(b);
  let scope = pa[0] as AnyStateNode;
  for (let i = 0; i < Math.min(pa.length, pb.length) && pa[i] === pb[i]; i++) scope = pa[i] as AnyStateNode;
  // An edge from a node to itself or to its own child is drawn in the scope around it.
  if ((scope === a || scope === b) && scope.parent !== undefined) scope = scope.parent;
  while (scope.type === 'parallel' && scope.parent !== undefined) scope = scope.parent;
  return scope;
}

function collectEdges(node: AnyStateNode, into: Map<AnyStateNode, Edge[]>): void {
  for (const [eventType, transitions] of node.transitions) {
    for (const t of transitions) {
      const guard = guardName(t.guard);
      const label = guard === undefined ? eventType : `${eventType} [${guard}]`;
      const targets = t.target ?? [node];
      for (const to of targets) {
        const scope = commonScope(node, to);
        const list = into.get(scope) ?? [];
        list.push({ from: node, to, label });
        into.set(scope, list);
      }
    }
  }
  for (const child of Object.values(node.states) as AnyStateNode[]) collectEdges(child, into);
}

function renderBody(
  node: AnyStateNode,
  edges: Map<AnyStateNode, Edge[]>,
  indent: string,
  out: string[],
): void {
  const children = Object.values(node.states) as AnyStateNode[];
  if (node.type === 'compound') {
    const initial = node.initial.target[0];
    if (initial !== undefined) out.push(`${indent}[*] --> ${idOf(initial)}`);
  }
  children.forEach((child, i) => {
    if (node.type === 'parallel' && i > 0) out.push(`${indent}--`);
    const hasChildren = Object.keys(child.states).length > 0;
    out.push(`${indent}state "${child.key}" as ${idOf(child)}${hasChildren ? ' {' : ''}`);
    if (hasChildren) {
      renderBody(child, edges, `${indent}  `, out);
      out.push(`${indent}}`);
    }
    if (child.type === 'final') out.push(`${indent}${idOf(child)} --> [*]`);
  });
  for (const e of edges.get(node) ?? []) out.push(`${indent}${idOf(e.from)} --> ${idOf(e.to)} : ${e.label}`);
}

/** Mermaid source for the machine, e.g. for a ```mermaid block. */
export function toMermaid(machine: AnyStateMachine): string {
  const edges = new Map<AnyStateNode, Edge[]>();
  collectEdges(machine.root, edges);
  const out = ['stateDiagram-v2'];
  renderBody(machine.root, edges, '  ', out);
  return `${out.join('\n')}\n`;
}

function renderDot(node: AnyStateNode, indent: string, out: string[]): void {
  for (const child of Object.values(node.states) as AnyStateNode[]) {
    const hasChildren = Object.keys(child.states).length > 0;
    if (hasChildren) {
      out.push(`${indent}subgraph cluster_${idOf(child)} {`);
      out.push(`${indent}  label="${child.key}${child.type === 'parallel' ? ' (parallel)' : ''}";`);
      renderDot(child, `${indent}  `, out);
      out.push(`${indent}}`);
    } else {
      const shape = child.type === 'final' ? 'doublecircle' : 'box';
      out.push(`${indent}${idOf(child)} [label="${child.key}", shape=${shape}, style=rounded];`);
    }
  }
}

/** Graphviz `dot` source for the machine; compound states become clusters. */
export function toDot(machine: AnyStateMachine): string {
  const edges = new Map<AnyStateNode, Edge[]>();
  collectEdges(machine.root, edges);
  const out = [`digraph ${idOf(machine.root)} {`, '  rankdir=LR;', '  node [fontname="Helvetica"];'];
  renderDot(machine.root, '  ', out);
  const leaf = (n: AnyStateNode): AnyStateNode => {
    // an edge to a compound state is drawn to its initial leaf, as dot cannot point at a cluster
    let cur = n;
    while (cur.type === 'compound' && cur.initial.target[0] !== undefined) cur = cur.initial.target[0];
    if (cur.type === 'parallel') cur = (Object.values(cur.states) as AnyStateNode[])[0] ?? cur;
    return Object.keys(cur.states).length > 0 && cur !== n ? leaf(cur) : cur;
  };
  for (const list of edges.values()) {
    for (const e of list) {
      if (Object.keys(e.from.states).length > 0 && e.from.type !== 'compound' && e.from.type !== 'parallel')
        continue;
      out.push(`  ${idOf(leaf(e.from))} -> ${idOf(leaf(e.to))} [label="${e.label.replace(/"/g, '\\"')}"];`);
    }
  }
  out.push('}');
  return `${out.join('\n')}\n`;
}
