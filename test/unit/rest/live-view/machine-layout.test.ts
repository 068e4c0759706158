// The live view's layout: every state and every transition of the definitions is drawn, and no edge
// runs through a box it does not start or end at, in both directions the page may choose.
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { openElkThread } from '../../../../src/rest/live-view/elk-thread.js';
import { batchMachine } from '../../../../src/machines/batch.js';
import { connectorMachine } from '../../../../src/machines/connector.js';
import { taskMachine } from '../../../../src/machines/task.js';
import { machineGraph } from '../../../../src/rest/live-view/machine-graph.js';
import {
  layoutMachine,
  type Direction,
  type MachineLayout,
  type PlacedState,
  type Point,
  type Rect,
} from '../../../../src/rest/live-view/machine-layout.js';

const MACHINES: AnyStateMachine[] = [batchMachine, taskMachine, connectorMachine];
const DIRECTIONS: Direction[] = ['RIGHT', 'DOWN'];
/** The first layout loads elkjs; on a busy machine either takes seconds. */
const SLOW = 60_000;

const elk = openElkThread();
afterAll(() => elk.close());
const layouts = new Map<string, Promise<MachineLayout>>();
const layoutOf = (machine: AnyStateMachine, direction: Direction) => {
  const key = `${machine.id}:${direction}`;
  if (!layouts.has(key)) layouts.set(key, layoutMachine(elk, machineGraph(machine), { direction }));
  return layouts.get(key)!;
};

/** A drawn state's path of keys from the top, read from the drawing's own nesting. */
function pathOf(layout: MachineLayout, placed: PlacedState): string[] {
  const parent = layout.states.find((s) => s.state.key === placed.state.parent);
  return parent === undefined ? [placed.state.label] : [...pathOf(layout, parent), placed.state.label];
}

function placedFor(layout: MachineLayout, node: AnyStateNode): PlacedState | undefined {
  const want = node.path.join('/');
  return layout.states.find((s) => pathOf(layout, s).join('/') === want);
}

/** Every state node of a definition, walked through `states`. */
function allStates(node: AnyStateNode): AnyStateNode[] {
  return (Object.values(node.states) as AnyStateNode[]).flatMap((c) => [c, ...allStates(c)]);
}

/** A transition target as the definition writes it: `#id`, a sibling's key, or a path below the sibling. */
function resolveTarget(machine: AnyStateMachine, source: AnyStateNode, target: string): AnyStateNode {
  if (target.startsWith('#')) return machine.getStateNodeById(target.slice(1));
  const [first, ...rest] = target.split('.');
  let node = source.parent!.states[first!] as AnyStateNode;
  for (const key of rest) node = node.states[key] as AnyStateNode;
  return node;
}

interface DefinedTransition {
  source: AnyStateNode;
  event: string;
  guard: string | undefined;
  target: AnyStateNode | undefined;
}

/** Every transition of the definition, read from each state's `on` as written (not XState's parse of it). */
function definedTransitions(machine: AnyStateMachine): DefinedTransition[] {
  const out: DefinedTransition[] = [];
  for (const source of allStates(machine.root)) {
    const on = (source.config.on ?? {}) as Record<string, unknown>;
    for (const [event, spec] of Object.entries(on)) {
      for (const t of Array.isArray(spec) ? spec : [spec]) {
        const config = (typeof t === 'string' ? { target: t } : t) as { target?: string; guard?: unknown };
        const guard =
          typeof config.guard === 'string'
            ? config.guard
            : (config.guard as { type?: string } | undefined)?.type;
        const target =
          config.target === undefined ? undefined : resolveTarget(machine, source, config.target);
        out.push({ source, event, guard, target });
      }
    }
  }
  return out;
}

/** Whether the segment a→b enters the inside of the box (touching its border does not count). */
function crossesInside(a: Point, b: Point, box: Rect, inset = 1): boolean {
  const [x0, x1] = [box.x + inset, box.x + box.width - inset];
  const [y0, y1] = [box.y + inset, box.y + box.height - inset];
  // Liang–Barsky: clip the segment to the box; anything left is inside it
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  for (const [p, q] of [
    [-dx, a.x - x0],
    [dx, x1 - a.x],
    [-dy, a.y - y0],
    [dy, y1 - a.y],
  ] as const) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return t1 - t0 > 1e-9;
}

const onBorder = (p: Point, box: Rect) =>
  p.x >= box.x - 1 &&
  p.x <= box.x + box.width + 1 &&
  p.y >= box.y - 1 &&
  p.y <= box.y + box.height + 1 &&
  (Math.abs(p.x - box.x) <= 1 ||
    Math.abs(p.x - box.x - box.width) <= 1 ||
    Math.abs(p.y - box.y) <= 1 ||
    Math.abs(p.y - box.y - box.height) <= 1);

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.each(MACHINES.flatMap((m) => DIRECTIONS.map((d) => [m.id, d, m] as const)))(
  'the %s machine laid out %s',
  (_id, direction, machine) => {
    it(
      'draws every state of the definition once, inside the box of the state that holds it',
      async () => {
        const layout = await layoutOf(machine, direction);
        const states = allStates(machine.root);
        expect(layout.states).toHaveLength(states.length);
        for (const node of states) {
          const placed = placedFor(layout, node);
          expect(placed, node.id).toBeDefined();
          const parent = node.parent === undefined ? undefined : placedFor(layout, node.parent);
          if (parent === undefined) continue;
          expect(placed!.x, node.id).toBeGreaterThanOrEqual(parent.x);
          expect(placed!.y, node.id).toBeGreaterThanOrEqual(parent.y);
          expect(placed!.x + placed!.width, node.id).toBeLessThanOrEqual(parent.x + parent.width);
          expect(placed!.y + placed!.height, node.id).toBeLessThanOrEqual(parent.y + parent.height);
        }
      },
      SLOW,
    );

    it(
      'draws every transition of every `on`, from its source to its target, labelled with its event',
      async () => {
        const layout = await layoutOf(machine, direction);
        const transitions = definedTransitions(machine);
        expect(transitions.length).toBeGreaterThan(5);
        for (const t of transitions) {
          const from = placedFor(layout, t.source)!.state.key;
          const to = t.target === undefined ? from : placedFor(layout, t.target)!.state.key;
          const label = t.guard === undefined ? t.event : `${t.event} [${t.guard}]`;
          const edge = layout.edges.find((e) => e.from === from && e.to === to);
          expect(edge, `${from} → ${to} on ${label}`).toBeDefined();
          expect(edge!.events).toContain(label);
          expect(edge!.internal).toBe(t.target === undefined);
        }
      },
      SLOW,
    );

    it(
      'routes no edge through a box it does not start or end at, and starts and ends on its boxes',
      async () => {
        const layout = await layoutOf(machine, direction);
        const byKey = new Map(layout.states.map((s) => [s.state.key, s]));
        const ancestorsOf = (key: string | undefined): string[] => {
          const s = key === undefined ? undefined : byKey.get(key);
          return s === undefined ? [] : [s.state.key, ...ancestorsOf(s.state.parent)];
        };
        const dots = new Map(layout.initials.map((d) => [d.container, d]));
        for (const edge of layout.edges) {
          const name = `${edge.from} → ${edge.to}`;
          const start = edge.initialIn !== undefined ? dots.get(edge.initialIn)! : byKey.get(edge.from)!;
          const end = byKey.get(edge.to)!;
          expect(edge.points.length, name).toBeGreaterThanOrEqual(2);
          expect(onBorder(edge.points[0]!, start), `${name} starts on its source`).toBe(true);
          expect(onBorder(edge.points.at(-1)!, end), `${name} ends on its target`).toBe(true);
          // containers around either end are crossed on the way in or out; any other box is not
          const mayCross = new Set([...ancestorsOf(edge.initialIn || undefined), ...ancestorsOf(edge.to)]);
          if (edge.initialIn === undefined) for (const k of ancestorsOf(edge.from)) mayCross.add(k);
          const boxes: Array<[string, Rect]> = [
            ...layout.states
              .filter((s) => !mayCross.has(s.state.key))
              .map((s) => [s.state.key, s] as [string, Rect]),
            ...layout.initials
              .filter((d) => d !== start)
              .map((d) => [`initial of ${d.container || 'top'}`, d] as [string, Rect]),
          ];
          for (let i = 1; i < edge.points.length; i++) {
            const [a, b] = [edge.points[i - 1]!, edge.points[i]!];
            expect(
              Math.abs(a.x - b.x) < 1 || Math.abs(a.y - b.y) < 1,
              `${name}: segment ${i} is orthogonal`,
            ).toBe(true);
            for (const [key, box] of boxes)
              expect(crossesInside(a, b, box), `${name} passes through ${key}`).toBe(false);
          }
        }
      },
      SLOW,
    );

    it(
      'writes no event label over a state',
      async () => {
        const layout = await layoutOf(machine, direction);
        const leaves = layout.states.filter((s) => s.state.children.length === 0);
        for (const edge of layout.edges) {
          if (edge.label === undefined) continue;
          for (const s of leaves)
            expect(overlaps(edge.label, s), `${edge.events[0]} over ${s.state.key}`).toBe(false);
        }
      },
      SLOW,
    );
  },
);

describe('the checks themselves', () => {
  it('see a segment through a box, and not one along its border or beside it', () => {
    const box = { x: 10, y: 10, width: 100, height: 40 };
    expect(crossesInside({ x: 0, y: 30 }, { x: 200, y: 30 }, box)).toBe(true);
    expect(crossesInside({ x: 60, y: 0 }, { x: 60, y: 20 }, box)).toBe(true);
    expect(crossesInside({ x: 0, y: 10 }, { x: 200, y: 10 }, box)).toBe(false);
    expect(crossesInside({ x: 0, y: 60 }, { x: 200, y: 60 }, box)).toBe(false);
    expect(crossesInside({ x: 110, y: 30 }, { x: 200, y: 30 }, box)).toBe(false);
  });

  it('resolve the targets the definitions write: a sibling, a path below it, an id', () => {
    const starting = connectorMachine.root.states['starting'] as AnyStateNode;
    expect(resolveTarget(connectorMachine, starting, 'up.paused').id).toBe('connector.up.paused');
    expect(resolveTarget(connectorMachine, starting, 'failed').id).toBe('connector.failed');
    const acquired = batchMachine.getStateNodeById('batch.active.work.acquired');
    expect(resolveTarget(batchMachine, acquired, '#batch.acknowledging').id).toBe('batch.acknowledging');
  });
});
