import { describe, expect, it } from 'vitest';
import type { ClusterView } from '../../../../src/distributed/group-types.js';
import { clusterPanelHtml } from '../../../../src/rest/live-view/cluster-panel.js';
import { machinesPage } from '../../../../src/rest/live-view/machines-page.js';
import { taskMachine } from '../../../../src/machines/task.js';

const member = (id: string, port: number, configOffset = 7n) => ({
  memberId: id,
  workerId: `127.0.0.1:${port}`,
  restUrl: `http://127.0.0.1:${port}`,
  configOffset,
});

const view: ClusterView = {
  groupId: 'orders-<cluster>',
  memberId: 'm-b',
  generation: 4,
  leaderId: 'm-a',
  isLeader: false,
  state: 'stable',
  members: [member('m-a', 18081), member('m-b', 18082)],
  assignment: {
    leaderId: 'm-a',
    leaderUrl: 'http://127.0.0.1:18081',
    configOffset: 7n,
    connectors: [],
    tasks: [{ connector: 'pg', task: 1 }],
    revokedConnectors: [],
    revokedTasks: [{ connector: 'pg', task: 2 }],
    delayMs: 0,
  },
};

describe('the cluster panel of the live view', () => {
  it('shows generation, leader, each member with what it runs, and this worker’s assignment', () => {
    const html = clusterPanelHtml({
      view,
      runningOn: new Map([
        ['127.0.0.1:18081', ['pg', 'pg-0']],
        ['127.0.0.1:18082', ['pg-1', 'pg-2 (FAILED)']],
      ]),
    });
    expect(html).toContain('generation 4, stable, leader 127.0.0.1:18081, 2 member(s)');
    const rows = html.match(/<tr><td>.*?<\/tr>/g)!;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/127\.0\.0\.1:18081 <b class="badge">leader<\/b>/);
    expect(rows[0]).toContain('<td>pg, pg-0</td>');
    expect(rows[1]).toContain('this worker');
    expect(rows[1]).toContain('pg-1, pg-2 (FAILED)');
    expect(html).toContain(
      'This worker: connectors <span class="none">none</span>; tasks pg-1; giving away pg-2',
    );
    // names come from users: escaped
    expect(html).toContain('orders-&lt;cluster&gt;');
    expect(html).not.toContain('<cluster>');
  });

  it('says when there is no assignment yet and a member runs nothing', () => {
    const html = clusterPanelHtml({
      view: { ...view, state: 'joining', assignment: undefined },
      runningOn: new Map(),
    });
    expect(html).toContain('joining');
    expect(html).toContain('No assignment yet.');
    expect(html.match(/<span class="none">none<\/span>/g)).toHaveLength(2);
  });

  it('the page holds a hidden cluster section that only a distributed worker fills (standalone: 404)', async () => {
    const page = await machinesPage([taskMachine], 'sharesink');
    expect(page).toContain('<section id="cluster" hidden></section>');
    expect(page).toContain("fetch(base + '/cluster')");
    expect(page).toContain('if (res.status === 404) return;');
  }, 60_000);
});
