/**
 * Places a machine graph with ELK's layered algorithm (elkjs, the layout Stately's own visualiser uses)
 * instead of a hand-written one: containers hold their states, edges are routed orthogonally around
 * every box, and edge labels get room of their own.
 *
 * ELK itself runs in a thread of its own (elk-thread.ts). Everything returned is in absolute
 * coordinates, so the renderer and the geometry test need no ELK.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { Layouter } from './elk-thread.js';
import type { GraphState, MachineGraph } from './machine-graph.js';

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Rect extends Point {
  readonly width: number;
  readonly height: number;
}

export interface PlacedState extends Rect {
  readonly state: GraphState;
}

export interface PlacedEdge {
  /** State key, or `(initial)` for the arrow from an initial pseudo-state. */
  readonly from: string;
  readonly to: string;
  /** For an initial arrow: key of the container it starts in, '' at the top level. */
  readonly initialIn: string | undefined;
  readonly events: readonly string[];
  readonly internal: boolean;
  /** The route, first point on the source's border, last on the target's. */
  readonly points: readonly Point[];
  /** Where the events are written, one a line; undefined for initial arrows. */
  readonly label: Rect | undefined;
}

export interface MachineLayout {
  readonly graph: MachineGraph;
  /** Containers before what they contain, so drawing in this order paints children on top. */
  readonly states: readonly PlacedState[];
  /** Initial pseudo-states: the dot an initial arrow starts at. */
  readonly initials: readonly (Rect & { readonly container: string })[];
  readonly edges: readonly PlacedEdge[];
  readonly width: number;
  readonly height: number;
}

export const STATE_FONT_PX = 13;
export const LABEL_FONT_PX = 10.5;
export const LABEL_LINE_PX = 13;
/** Edge labels are set in a monospace font, so this width is exact rather than a guess. */
const MONO_CHAR_EM = 0.6;
/** State names are proportional; an overestimate keeps them inside their boxes. */
const SANS_CHAR_EM = 0.62;
const STATE_MIN_W = 118;
export const STATE_H = 44;
/** Room at the top of a container for its name. */
export const CONTAINER_HEAD = 26;
const INITIAL_D = 12;

export const labelWidth = (line: string) => Math.ceil(line.length * LABEL_FONT_PX * MONO_CHAR_EM) + 4;

const stateId = (key: string) => `s:${key}`;
const initialId = (container: string) => `i:${container}`;

/** Set on the root and on every container: ELK reads a graph's options from the node that holds it. */
const LAYOUT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.layered.spacing.edgeNodeBetweenLayers': '14',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
  'elk.spacing.nodeNode': '26',
  'elk.spacing.edgeNode': '14',
  'elk.spacing.edgeEdge': '8',
  'elk.spacing.edgeLabel': '3',
  'elk.spacing.labelNode': '6',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  // a depth-first walk in the definition's order picks the edges that close cycles, so the flow reads
  // as written: putting → retrying runs forward, retrying → putting back
  'elk.layered.cycleBreaking.strategy': 'DFS_NODE_ORDER',
};

export type Direction = 'RIGHT' | 'DOWN';

const ROOT_PADDING = '[top=12,left=12,bottom=12,right=12]';
const CONTAINER_PADDING = `[top=${CONTAINER_HEAD + 6},left=14,bottom=14,right=14]`;

function stateNode(state: GraphState, graph: MachineGraph, direction: Direction): ElkNode {
  if (state.children.length === 0) {
    return {
      id: stateId(state.key),
      width: Math.max(STATE_MIN_W, Math.ceil(state.label.length * STATE_FONT_PX * SANS_CHAR_EM) + 28),
      height: STATE_H,
    };
  }
  const children = graph.states.filter((s) => s.parent === state.key);
  const nodes = children.map((c) => stateNode(c, graph, direction));
  if (state.initial !== undefined) nodes.unshift(initialNode(state.key));
  return {
    id: stateId(state.key),
    layoutOptions: {
      ...LAYOUT_OPTIONS,
      'elk.direction': direction,
      'elk.padding': CONTAINER_PADDING,
    },
    children: nodes,
  };
}

const initialNode = (container: string): ElkNode => ({
  id: initialId(container),
  width: INITIAL_D,
  height: INITIAL_D,
  // the dot goes first, left of everything else in its container
  layoutOptions: { 'elk.layered.layering.layerConstraint': 'FIRST' },
});

function edgeLabel(events: readonly string[]) {
  return {
    text: events.join('\n'),
    width: Math.max(...events.map(labelWidth)),
    height: events.length * LABEL_LINE_PX + 2,
  };
}

/** The ELK graph for a machine: states nested as the definition nests them, every edge at the root. */
export function elkGraph(graph: MachineGraph, direction: Direction = 'RIGHT'): ElkNode {
  const top = graph.states.filter((s) => s.parent === undefined).map((s) => stateNode(s, graph, direction));
  const edges: ElkExtendedEdge[] = [
    { id: 'init:', sources: [initialId('')], targets: [stateId(graph.initial)] },
  ];
  for (const s of graph.states) {
    if (s.initial !== undefined)
      edges.push({ id: `init:${s.key}`, sources: [initialId(s.key)], targets: [stateId(s.initial)] });
  }
  // Regions stand side by side, as statecharts draw them: across the layers when the layout runs
  // downwards (they share a layer, having no edge between them), and when it runs to the right, an
  // edge nobody draws between consecutive regions puts each in the layer after the one before.
  if (direction === 'RIGHT') {
    for (const s of graph.states) {
      if (s.kind !== 'parallel') continue;
      s.children.slice(1).forEach((region, i) =>
        edges.push({
          id: `region:${s.key}:${i}`,
          sources: [stateId(s.children[i]!)],
          targets: [stateId(region)],
        }),
      );
    }
  }
  graph.edges.forEach((e, i) =>
    edges.push({
      id: `e:${i}`,
      sources: [stateId(e.from)],
      targets: [stateId(e.to)],
      labels: [edgeLabel(e.events)],
    }),
  );
  return {
    id: 'root',
    layoutOptions: { ...LAYOUT_OPTIONS, 'elk.direction': direction, 'elk.padding': ROOT_PADDING },
    children: [initialNode(''), ...top],
    edges,
  };
}

/** Shrinking a drawing by more than this makes its text hard to read; a top-down layout is tried then. */
const MIN_READABLE_SCALE = 0.85;

/**
 * Left to right, unless that must shrink below MIN_READABLE_SCALE to fit `fitWidth` and top-down
 * needs less: a machine with many states in a row is drawn downwards rather than at an unreadable scale.
 */
export async function layoutMachine(
  elk: Layouter,
  graph: MachineGraph,
  options: { fitWidth?: number; direction?: Direction } = {},
): Promise<MachineLayout> {
  if (options.direction !== undefined) return layoutIn(elk, graph, options.direction);
  const fit = options.fitWidth ?? Number.POSITIVE_INFINITY;
  const scale = (l: MachineLayout) => Math.min(1, fit / l.width);
  const across = await layoutIn(elk, graph, 'RIGHT');
  if (scale(across) >= MIN_READABLE_SCALE) return across;
  const down = await layoutIn(elk, graph, 'DOWN');
  return scale(down) > scale(across) ? down : across;
}

async function layoutIn(elk: Layouter, graph: MachineGraph, direction: Direction): Promise<MachineLayout> {
  const result = await elk.layout(elkGraph(graph, direction));
  // ELK gives each node relative to its parent and each edge relative to its container
  const origin = new Map<string, Point>([['root', { x: 0, y: 0 }]]);
  const boxes = new Map<string, Rect>();
  const walk = (node: ElkNode, at: Point) => {
    for (const child of node.children ?? []) {
      const box = {
        x: at.x + (child.x ?? 0),
        y: at.y + (child.y ?? 0),
        width: child.width ?? 0,
        height: child.height ?? 0,
      };
      boxes.set(child.id, box);
      origin.set(child.id, box);
      walk(child, box);
    }
  };
  walk(result, { x: 0, y: 0 });
  const byKey = new Map(graph.states.map((s) => [s.key, s]));
  const states: PlacedState[] = graph.states.map((state) => ({ state, ...boxes.get(stateId(state.key))! }));
  const initials = ['', ...graph.states.filter((s) => s.initial !== undefined).map((s) => s.key)].map(
    (container) => ({ container, ...boxes.get(initialId(container))! }),
  );
  const drawn = (result.edges ?? []).filter((e) => !e.id.startsWith('region:'));
  const edges: PlacedEdge[] = drawn.map((raw) => {
    const e = raw as ElkExtendedEdge;
    const base = origin.get(e.container ?? 'root') ?? { x: 0, y: 0 };
    const shift = (p: Point) => ({ x: base.x + p.x, y: base.y + p.y });
    const section = e.sections?.[0];
    const points =
      section === undefined
        ? []
        : [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(shift);
    if (e.id.startsWith('init:')) {
      const container = e.id.slice('init:'.length);
      const to = container === '' ? graph.initial : byKey.get(container)!.initial!;
      return {
        from: '(initial)',
        to,
        initialIn: container,
        events: [],
        internal: false,
        points,
        label: undefined,
      };
    }
    const g = graph.edges[Number(e.id.slice('e:'.length))]!;
    const l = e.labels?.[0];
    const label =
      l === undefined
        ? undefined
        : { ...shift({ x: l.x ?? 0, y: l.y ?? 0 }), width: l.width ?? 0, height: l.height ?? 0 };
    return {
      from: g.from,
      to: g.to,
      initialIn: undefined,
      events: g.events,
      internal: g.internal,
      points,
      label,
    };
  });
  return { graph, states, initials, edges, width: result.width ?? 0, height: result.height ?? 0 };
}
