/**
 * Inline SVG for a laid-out machine: containers (compound states, the regions of a parallel state)
 * behind their states, every edge with its events, and empty `.count` / `.rate` slots the page's
 * script fills from `/machines/events`. The SVG carries its natural size in its view box and scales
 * down to its container's width, so no machine scrolls sideways.
 */
import {
  CONTAINER_HEAD,
  LABEL_FONT_PX,
  LABEL_LINE_PX,
  type MachineLayout,
  type PlacedEdge,
  type PlacedState,
  type Point,
} from './machine-layout.js';

export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** States drawn in red while actors are in them. */
const FAULT_STATES = new Set(['failed', 'ackFailed', 'expired']);

const r = (n: number) => Math.round(n * 10) / 10;

/** An orthogonal route with its corners rounded off, so crossing lines read apart from bends. */
function routePath(points: readonly Point[]): string {
  if (points.length === 0) return '';
  const radius = 5;
  let d = `M${r(points[0]!.x)},${r(points[0]!.y)}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [a, b, c] = [points[i - 1]!, points[i]!, points[i + 1]!];
    const inLen = Math.hypot(b.x - a.x, b.y - a.y);
    const outLen = Math.hypot(c.x - b.x, c.y - b.y);
    const k = Math.min(radius, inLen / 2, outLen / 2);
    if (k < 0.5) {
      d += ` L${r(b.x)},${r(b.y)}`;
      continue;
    }
    const p = { x: b.x - ((b.x - a.x) / inLen) * k, y: b.y - ((b.y - a.y) / inLen) * k };
    const q = { x: b.x + ((c.x - b.x) / outLen) * k, y: b.y + ((c.y - b.y) / outLen) * k };
    d += ` L${r(p.x)},${r(p.y)} Q${r(b.x)},${r(b.y)} ${r(q.x)},${r(q.y)}`;
  }
  const last = points[points.length - 1]!;
  return `${d} L${r(last.x)},${r(last.y)}`;
}

function stateSvg(p: PlacedState, initial: boolean): string {
  const s = p.state;
  const classes = ['node'];
  if (s.children.length > 0) classes.push('container', s.kind);
  if (s.kind === 'final') classes.push('final');
  if (initial) classes.push('initial');
  if (FAULT_STATES.has(s.label)) classes.push('failed');
  const kind = s.children.length > 0 ? 'container' : 'state';
  const open = `<g class="${classes.join(' ')}" data-state="${escapeHtml(s.key)}" data-kind="${kind}">`;
  if (s.children.length > 0) {
    const title = s.kind === 'parallel' ? `${s.label} (parallel)` : s.label;
    return (
      open +
      `<rect x="${r(p.x)}" y="${r(p.y)}" width="${r(p.width)}" height="${r(p.height)}" rx="12"/>` +
      `<text class="name" x="${r(p.x + 12)}" y="${r(p.y + CONTAINER_HEAD / 2 + 5)}">${escapeHtml(title)}` +
      `<tspan class="count" dx="8"></tspan></text></g>`
    );
  }
  const cx = r(p.x + p.width / 2);
  return (
    open +
    `<rect x="${r(p.x)}" y="${r(p.y)}" width="${r(p.width)}" height="${r(p.height)}" rx="10"/>` +
    `<text class="name" x="${cx}" y="${r(p.y + 18)}">${escapeHtml(s.label)}</text>` +
    `<text class="count" x="${cx}" y="${r(p.y + 35)}">0</text></g>`
  );
}

function edgeSvg(e: PlacedEdge, marker: string): string {
  const path = `<path d="${routePath(e.points)}" marker-end="url(#${marker})"/>`;
  if (e.initialIn !== undefined) {
    return (
      `<g class="edge initial" data-from="(initial)" data-to="${escapeHtml(e.to)}" data-in="${escapeHtml(e.initialIn)}">` +
      `${path}</g>`
    );
  }
  const l = e.label;
  const lines =
    l === undefined
      ? ''
      : e.events
          .map(
            (ev, i) =>
              `<tspan x="${r(l.x + 2)}" y="${r(l.y + (i + 1) * LABEL_LINE_PX - 2)}">${escapeHtml(ev)}</tspan>`,
          )
          .join('');
  const rate = l === undefined ? '' : `<text class="rate" x="${r(l.x + l.width)}" y="${r(l.y - 2)}"></text>`;
  return (
    `<g class="edge" data-from="${escapeHtml(e.from)}" data-to="${escapeHtml(e.to)}">` +
    `<title>${escapeHtml(`${e.from} → ${e.to}: ${e.events.join(', ')}`)}</title>` +
    path +
    (lines === '' ? '' : `<text class="events" style="font-size:${LABEL_FONT_PX}px">${lines}</text>`) +
    `${rate}</g>`
  );
}

export function machineSvg(layout: MachineLayout): string {
  const id = escapeHtml(layout.graph.machine);
  const marker = `arrow-${id}`;
  const initialKeys = new Set([layout.graph.initial]);
  // containers first (they are the background), then edges, then the states on top of both
  const containers = layout.states.filter((s) => s.state.children.length > 0);
  const leaves = layout.states.filter((s) => s.state.children.length === 0);
  const dots = layout.initials.map(
    (d) =>
      `<circle class="start" cx="${r(d.x + d.width / 2)}" cy="${r(d.y + d.height / 2)}" r="${r(d.width / 2)}"/>`,
  );
  const w = Math.ceil(layout.width);
  const h = Math.ceil(layout.height);
  return (
    `<svg class="machine" data-machine="${id}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${id} state machine">` +
    `<defs><marker id="${marker}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>` +
    containers.map((c) => stateSvg(c, initialKeys.has(c.state.key))).join('') +
    dots.join('') +
    layout.edges.map((e) => edgeSvg(e, marker)).join('') +
    leaves.map((s) => stateSvg(s, initialKeys.has(s.state.key))).join('') +
    `</svg>`
  );
}
