/**
 * The worker cluster in the live view (`/machines`) of a distributed worker: generation, leader, the
 * members with what each runs, and this worker's assignment. Served as an HTML fragment at
 * `/machines/cluster`, which the page polls; a standalone worker has no such route and shows no panel.
 */
import type { ClusterView } from '../../distributed/group-types.js';
import type { DistributedWorker } from '../../distributed/herder/distributed-worker.js';
import { escapeHtml } from './machine-svg.js';

export interface ClusterPanelData {
  readonly view: ClusterView;
  /** The instances each worker runs, by worker id, as the status topic says (`pg`, `pg-0`, …). */
  readonly runningOn: ReadonlyMap<string, readonly string[]>;
}

const list = (items: readonly string[]) =>
  items.length === 0 ? '<span class="none">none</span>' : items.map((i) => escapeHtml(i)).join(', ');

export function clusterPanelHtml({ view, runningOn }: ClusterPanelData): string {
  const a = view.assignment;
  const leader = view.members.find((m) => m.memberId === view.leaderId);
  const rows = view.members.map((m) => {
    const badges = [
      m.memberId === view.leaderId ? '<b class="badge">leader</b>' : '',
      m.memberId === view.memberId ? '<b class="badge me">this worker</b>' : '',
    ].join(' ');
    return `<tr><td>${escapeHtml(m.workerId)} ${badges}</td><td><a href="${escapeHtml(m.restUrl)}/machines">${escapeHtml(m.restUrl)}</a></td><td>${escapeHtml(m.configOffset.toString())}</td><td>${list(runningOn.get(m.workerId) ?? [])}</td></tr>`;
  });
  const mine =
    a === undefined
      ? '<p>No assignment yet.</p>'
      : `<p>This worker: connectors ${list(a.connectors)}; tasks ${list(a.tasks.map((t) => `${t.connector}-${t.task}`))}${
          a.revokedConnectors.length + a.revokedTasks.length > 0
            ? `; giving away ${list([...a.revokedConnectors, ...a.revokedTasks.map((t) => `${t.connector}-${t.task}`)])}`
            : ''
        }; config offset ${escapeHtml(a.configOffset.toString())}.</p>`;
  return `<h2>cluster ${escapeHtml(view.groupId)} <span class="status">generation ${view.generation}, ${escapeHtml(view.state)}, leader ${escapeHtml(leader?.workerId ?? view.leaderId)}, ${view.members.length} member(s)</span></h2>
<table class="cluster"><thead><tr><th>worker</th><th>REST URL</th><th>config offset</th><th>runs (status topic)</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>
${mine}`;
}

/** The panel's data from a distributed worker: its member's view and the status topic's instances. */
export function clusterPanelData(w: DistributedWorker): ClusterPanelData {
  const h = w.herder;
  const runningOn = new Map<string, string[]>();
  const add = (workerId: string, what: string) => {
    if (workerId === '') return;
    let l = runningOn.get(workerId);
    if (l === undefined) runningOn.set(workerId, (l = []));
    l.push(what);
  };
  const shown = (id: string, state: string) => (state === 'RUNNING' ? id : `${id} (${state})`);
  for (const c of h.state.connectors) {
    const s = h.statusStore.connector(c.name);
    if (s !== undefined) add(s.workerId, shown(c.name, s.state));
    if (c.targetState === 'STOPPED') continue;
    for (const [id, t] of [...h.statusStore.tasks(c.name)].sort(([x], [y]) => x - y))
      if (id < c.tasks.length) add(t.workerId, shown(`${c.name}-${id}`, t.state));
  }
  return { view: h.member.view(), runningOn };
}
