/**
 * `GET /machines`: one self-contained HTML page (no external script, style or font: the worker may
 * have no internet) with the batch, task and connector machines laid out on the server
 * (machine-layout.ts) and drawn as inline SVG; the page's script only colours them from
 * `/machines/events`: live actors per state, transitions per second on the edges.
 */
import type { AnyStateMachine } from 'xstate';
import { openElkThread, type Layouter } from './elk-thread.js';
import { machineGraph, type MachineGraph } from './machine-graph.js';
import { layoutMachine, type MachineLayout } from './machine-layout.js';
import { liveNames, type LiveNames } from './machine-live-names.js';
import { escapeHtml, machineSvg } from './machine-svg.js';

/** What the page's script needs per machine to map runtime state names onto the drawing. */
export interface PageMachineData extends LiveNames {
  /** State key → the keys a transition into it enters: itself and, for a container, its initial states. */
  readonly enters: Readonly<Record<string, readonly string[]>>;
}

export function entersOf(graph: MachineGraph): Record<string, string[]> {
  const byKey = new Map(graph.states.map((s) => [s.key, s]));
  const enters = (key: string): string[] => {
    const s = byKey.get(key)!;
    if (s.kind === 'parallel') return [key, ...s.children.flatMap(enters)];
    return s.initial === undefined ? [key] : [key, ...enters(s.initial)];
  };
  return Object.fromEntries(graph.states.map((s) => [s.key, enters(s.key)]));
}

const STYLE = `
body{font:14px system-ui,sans-serif;margin:24px;color:#1d2430;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:0 0 6px}
.sub{color:#5a6472;margin:0 0 12px;max-width:70em} .status{font-size:12px;color:#5a6472;font-weight:400}
section{background:#fff;border:1px solid #dde2e8;border-radius:8px;padding:10px 16px 12px;margin-bottom:16px}
svg.machine{display:block;max-width:100%;height:auto}
.node rect{fill:#fff;stroke:#8a96a5;stroke-width:1.5}
.node.container rect{fill:#f6f8fa;stroke:#c3cbd5}
.node.parallel>rect{fill:#fbfcfd}
.node.region>rect{fill:#fff;stroke-dasharray:6 4}
.node.final rect{stroke-dasharray:4 3}
.node.initial>rect{stroke-width:2.5}
.node.busy>rect{fill:#dbeafe;stroke:#2563eb}
.node.container.busy>rect{fill:#eef4ff;stroke:#93b4f5}
.node.failed.busy rect{fill:#fee2e2;stroke:#dc2626}
.node text{text-anchor:middle;font-size:13px} .node .count{font-weight:600;font-size:12px;fill:#374151}
.node.container text{text-anchor:start;font-weight:600;fill:#4b5563} .node.container .count{fill:#2563eb}
circle.start{fill:#4b5563}
.edge path{fill:none;stroke:#aab4c0;stroke-width:1.3}
.edge .events{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;fill:#6b7480}
.edge.active path{stroke:#2563eb;stroke-width:2.6} .edge.active .events{fill:#1d4ed8}
.edge .rate{font-size:11px;font-weight:600;fill:#2563eb;text-anchor:end}
marker path{fill:#8a96a5}
table.cluster{border-collapse:collapse;margin:4px 0 8px} table.cluster th,table.cluster td{text-align:left;padding:3px 14px 3px 0;border-bottom:1px solid #eef1f4;vertical-align:top}
.badge{font-size:11px;font-weight:600;color:#1d4ed8;background:#eef4ff;border-radius:4px;padding:1px 5px} .badge.me{color:#047857;background:#ecfdf5} .none{color:#8a96a5}
`;

/** Written for the page: no machine is named here, the server sends DATA with the drawing. */
const SCRIPT = `
const status = document.getElementById('status');
const base = location.pathname.endsWith('/') ? location.pathname.slice(0, -1) : location.pathname;
const source = new EventSource(base + '/events');
source.onopen = () => { status.textContent = 'live'; };
source.onerror = () => { status.textContent = 'disconnected; retrying'; };
const EMPTY = { active: {}, notes: {}, enters: {} };
// a runtime transition from F to T took a drawn edge when it left the edge's source and entered its target
function taken(data, edge, F, T) {
  const SA = data.active[F] || [], SB = data.active[T] || [];
  const src = edge.dataset.from, dst = edge.dataset.to;
  if (src === '(initial)') {
    const box = edge.dataset.in;
    return SB.includes(dst) && (box ? SB.includes(box) && !SA.includes(box) : F === '(initial)');
  }
  if (src === dst) return F === T && SA.includes(src);
  const enters = data.enters[dst] || [dst];
  return SA.includes(src) && enters.every((k) => SB.includes(k)) && !enters.every((k) => SA.includes(k));
}
// distributed mode only: the worker cluster as this worker sees it; a standalone worker answers 404 and the panel stays hidden
const cluster = document.getElementById('cluster');
async function refreshCluster() {
  try {
    const res = await fetch(base + '/cluster');
    if (res.status === 404) return;
    if (res.ok) { cluster.innerHTML = await res.text(); cluster.hidden = false; }
  } catch {}
  setTimeout(refreshCluster, 2000);
}
refreshCluster();
source.addEventListener('machines', (message) => {
  const update = JSON.parse(message.data);
  for (const svg of document.querySelectorAll('svg.machine')) {
    const machine = svg.dataset.machine;
    const data = DATA[machine] || EMPTY;
    const counts = {}; const notes = {};
    for (const [state, count] of Object.entries(update.states[machine] || {})) {
      for (const key of data.active[state] || [state.split('/')[0]]) counts[key] = (counts[key] || 0) + count;
      for (const [key, note] of data.notes[state] || []) {
        const n = (notes[key] = notes[key] || {});
        n[note] = (n[note] || 0) + count;
      }
    }
    for (const node of svg.querySelectorAll('g.node')) {
      const key = node.dataset.state;
      const count = counts[key] || 0;
      const extra = Object.entries(notes[key] || {}).map(([note, n]) => n + ' ' + note).join(', ');
      const text = count + (extra ? ' (' + extra + ')' : '');
      node.querySelector('.count').textContent = node.dataset.kind === 'container' ? (count > 0 ? text : '') : text;
      node.classList.toggle('busy', count > 0);
    }
    const rates = update.rates.filter((r) => r.machine === machine);
    for (const edge of svg.querySelectorAll('g.edge')) {
      let rate = 0;
      for (const r of rates) if (taken(data, edge, r.from, r.to)) rate += r.perSecond;
      edge.classList.toggle('active', rate > 0);
      const label = edge.querySelector('.rate');
      if (label) label.textContent = rate > 0 ? rate.toFixed(1) + '/s' : '';
    }
    const total = document.getElementById('total-' + machine);
    if (total) total.textContent = (update.totals[machine] || 0) + ' transitions so far';
  }
  status.textContent = 'live, updated ' + new Date(update.at).toLocaleTimeString();
});
`;

/** The width a drawing gets in a 1400 px window: less the body's margins and the section's padding. */
export const PAGE_DRAWING_WIDTH = 1400 - 2 * 24 - 2 * 16 - 2;

export interface PageMachine {
  readonly layout: MachineLayout;
  readonly data: PageMachineData;
}

export async function pageMachine(elk: Layouter, machine: AnyStateMachine): Promise<PageMachine> {
  const graph = machineGraph(machine);
  const layout = await layoutMachine(elk, graph, { fitWidth: PAGE_DRAWING_WIDTH });
  return { layout, data: { ...liveNames(machine), enters: entersOf(graph) } };
}

export async function machinesPage(machines: readonly AnyStateMachine[], title: string): Promise<string> {
  const elk = openElkThread();
  let drawn: PageMachine[];
  try {
    drawn = await Promise.all(machines.map((m) => pageMachine(elk, m)));
  } finally {
    await elk.close();
  }
  const sections = drawn.map(({ layout }) => {
    const id = escapeHtml(layout.graph.machine);
    return `<section><h2>${id} <span class="status" id="total-${id}"></span></h2>${machineSvg(layout)}</section>`;
  });
  const data = Object.fromEntries(drawn.map((d) => [d.layout.graph.machine, d.data]));
  // JSON inside a script: only '<' could end it early
  const dataJson = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}: state machines</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}: state machines</h1>
<p class="sub">Drawn from the machine definitions the worker runs. Numbers: live actors per state (one batch actor per fetched batch). Blue edges: transitions per second over the last second. Grey boxes hold nested states; dashed ones are the regions of a parallel state, active at the same time. A dot marks where a machine or container starts; a dashed state is final. A batch actor ends when it reaches one, so <code>done</code>, <code>ackFailed</code> and <code>expired</code> stay at 0: the rate on the edge into them and the total say how many got there. <span class="status" id="status">connecting…</span></p>
<section id="cluster" hidden></section>
${sections.join('\n')}
<script>const DATA = ${dataJson};
${SCRIPT}</script></body></html>
`;
}
