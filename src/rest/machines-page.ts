/**
 * `GET /machines`: one self-contained HTML page (no external script, style or font: the worker may
 * have no internet) that draws the batch, task and connector machines as inline SVG from their
 * definitions and colours them from `/machines/events`: live actors per state, transitions per second
 * on the edges.
 */
import type { AnyStateMachine } from 'xstate';
import { machineGraph, NODE_H, NODE_W, type GraphNode, type MachineGraph } from './machine-graph.js';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface Point {
  x: number;
  y: number;
}

/** Where the line from a node's centre towards `toward` leaves its box. */
function boxExit(node: GraphNode, toward: Point): Point {
  const cx = node.x + NODE_W / 2;
  const cy = node.y + NODE_H / 2;
  const dx = toward.x - cx;
  const dy = toward.y - cy;
  if (dx === 0 && dy === 0) return { x: cx, y: cy };
  const scale = Math.min(
    dx === 0 ? Infinity : NODE_W / 2 / Math.abs(dx),
    dy === 0 ? Infinity : NODE_H / 2 / Math.abs(dy),
  );
  return { x: cx + dx * scale, y: cy + dy * scale };
}

/** States drawn in red while actors are in them. */
const FAULT_STATES = new Set(['failed', 'ackFailed', 'expired']);

const round = (n: number) => Math.round(n * 10) / 10;

const COLUMN = NODE_W + 70;

/**
 * An edge: straight to the next column; bowed when it skips columns (the longer, the more, towards the
 * side of its target, so it passes around the nodes between); bent when it goes back or stays in its
 * column, so a pair of opposite edges does not overlap.
 */
function edgePath(from: GraphNode, to: GraphNode): { d: string; mid: Point } {
  const fc = { x: from.x + NODE_W / 2, y: from.y + NODE_H / 2 };
  const tc = { x: to.x + NODE_W / 2, y: to.y + NODE_H / 2 };
  const span = Math.round((to.x - from.x) / COLUMN);
  const bend = span <= 0 ? 45 : span === 1 ? 0 : (to.y > from.y ? 1 : -1) * 16 * span;
  const mx = (fc.x + tc.x) / 2;
  const my = (fc.y + tc.y) / 2;
  const len = Math.hypot(tc.x - fc.x, tc.y - fc.y) || 1;
  // the control point sits off the middle, on the left of the direction of travel
  const control = { x: mx + (-(tc.y - fc.y) / len) * bend * 2, y: my + ((tc.x - fc.x) / len) * bend * 2 };
  const a = boxExit(from, control);
  const b = boxExit(to, control);
  const mid = { x: (a.x + 2 * control.x + b.x) / 4, y: (a.y + 2 * control.y + b.y) / 4 };
  return {
    d: `M${round(a.x)},${round(a.y)} Q${round(control.x)},${round(control.y)} ${round(b.x)},${round(b.y)}`,
    mid,
  };
}

export function machineSvg(graph: MachineGraph): string {
  const byName = new Map(graph.nodes.map((n) => [n.name, n]));
  const id = escapeHtml(graph.machine);
  // bowed edges may leave the node area: the view box grows to hold them
  let top = 0;
  let bottom = graph.height;
  const edges = graph.edges.map((e) => {
    const from = byName.get(e.from)!;
    const to = byName.get(e.to)!;
    const { d, mid } = edgePath(from, to);
    top = Math.min(top, mid.y - 16);
    bottom = Math.max(bottom, mid.y + 10);
    return (
      `<g class="edge" data-from="${escapeHtml(e.from)}" data-to="${escapeHtml(e.to)}">` +
      `<title>${escapeHtml(`${e.from} → ${e.to}: ${e.events.join(', ')}`)}</title>` +
      `<path d="${d}" marker-end="url(#arrow-${id})"/>` +
      `<text class="rate" x="${round(mid.x)}" y="${round(mid.y - 3)}"></text></g>`
    );
  });
  const nodes = graph.nodes.map(
    (n) =>
      `<g class="node${n.final ? ' final' : ''}${n.name === graph.initial ? ' initial' : ''}${FAULT_STATES.has(n.name) ? ' failed' : ''}" data-state="${escapeHtml(n.name)}">` +
      `<rect x="${n.x}" y="${n.y}" width="${NODE_W}" height="${NODE_H}" rx="10"/>` +
      `<text class="name" x="${n.x + NODE_W / 2}" y="${n.y + 18}">${escapeHtml(n.name)}</text>` +
      `<text class="count" x="${n.x + NODE_W / 2}" y="${n.y + 36}">0</text></g>`,
  );
  return (
    `<svg class="machine" data-machine="${id}" viewBox="0 ${round(top)} ${graph.width} ${round(bottom - top)}" width="${graph.width}" height="${round(bottom - top)}" role="img" aria-label="${id} state machine">` +
    `<defs><marker id="arrow-${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>` +
    `${edges.join('')}${nodes.join('')}</svg>`
  );
}

const STYLE = `
body{font:14px system-ui,sans-serif;margin:24px;color:#1d2430;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 6px}
.sub{color:#5a6472;margin:0 0 12px} .status{font-size:12px;color:#5a6472}
section{background:#fff;border:1px solid #dde2e8;border-radius:8px;padding:8px 16px 12px;margin-bottom:16px;overflow-x:auto}
.node rect{fill:#fff;stroke:#8a96a5;stroke-width:1.5}
.node.final rect{stroke-dasharray:4 3}
.node.initial rect{stroke-width:2.5}
.node.busy rect{fill:#dbeafe;stroke:#2563eb}
.node.failed.busy rect{fill:#fee2e2;stroke:#dc2626}
.node text{text-anchor:middle;font-size:13px} .node .count{font-weight:600;font-size:12px;fill:#374151}
.edge path{fill:none;stroke:#b6bfca;stroke-width:1.3} .edge marker path{fill:#b6bfca}
.edge.active path{stroke:#2563eb;stroke-width:2.6}
.edge .rate{font-size:11px;fill:#2563eb;text-anchor:middle}
marker path{fill:#8a96a5}
`;

/** Folds the batch machine's `/renewing` suffix into its state and shows it next to the count. */
const SCRIPT = `
const status = document.getElementById('status');
const base = location.pathname.endsWith('/') ? location.pathname.slice(0, -1) : location.pathname;
const source = new EventSource(base + '/events');
source.onopen = () => { status.textContent = 'live'; };
source.onerror = () => { status.textContent = 'disconnected; retrying'; };
source.addEventListener('machines', (message) => {
  const update = JSON.parse(message.data);
  for (const svg of document.querySelectorAll('svg.machine')) {
    const machine = svg.dataset.machine;
    const states = update.states[machine] || {};
    const folded = {}; const renewing = {};
    for (const [state, count] of Object.entries(states)) {
      const base = state.split('/')[0];
      folded[base] = (folded[base] || 0) + count;
      if (state.endsWith('/renewing')) renewing[base] = (renewing[base] || 0) + count;
    }
    for (const node of svg.querySelectorAll('g.node')) {
      const name = node.dataset.state;
      const count = folded[name] || 0;
      node.querySelector('.count').textContent = count + (renewing[name] ? ' (' + renewing[name] + ' renewing)' : '');
      node.classList.toggle('busy', count > 0);
    }
    const rates = {};
    for (const r of update.rates) {
      if (r.machine !== machine) continue;
      const key = r.from.split('/')[0] + '\\u0000' + r.to.split('/')[0];
      rates[key] = (rates[key] || 0) + r.perSecond;
    }
    for (const edge of svg.querySelectorAll('g.edge')) {
      const rate = rates[edge.dataset.from + '\\u0000' + edge.dataset.to] || 0;
      edge.classList.toggle('active', rate > 0);
      edge.querySelector('.rate').textContent = rate > 0 ? rate.toFixed(1) + '/s' : '';
    }
    const total = document.getElementById('total-' + machine);
    if (total) total.textContent = (update.totals[machine] || 0) + ' transitions so far';
  }
  status.textContent = 'live, updated ' + new Date(update.at).toLocaleTimeString();
});
`;

export function machinesPage(machines: readonly AnyStateMachine[], title: string): string {
  const sections = machines.map((m) => {
    const id = escapeHtml(m.id);
    return `<section><h2>${id} <span class="status" id="total-${id}"></span></h2>${machineSvg(machineGraph(m))}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}: state machines</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}: state machines</h1>
<p class="sub">Drawn from the machine definitions the worker runs. Numbers: live actors per state (one batch actor per fetched batch). Blue edges: transitions per second over the last second. <span class="status" id="status">connecting…</span></p>
${sections.join('\n')}
<script>${SCRIPT}</script></body></html>
`;
}
