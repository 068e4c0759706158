// The live view's graph and counters: drawn from the machine definitions, named as the runtime names states.
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { batchMachine } from '../../../src/machines/batch.js';
import { connectorMachine } from '../../../src/machines/connector.js';
import { taskMachine } from '../../../src/machines/task.js';
import { createActorCensus } from '../../../src/observability/actor-census.js';
import { machineGraph } from '../../../src/rest/machine-graph.js';
import { RateTracker } from '../../../src/rest/machine-events.js';
import { machineSvg, machinesPage } from '../../../src/rest/machines-page.js';

describe('machineGraph', () => {
  it('draws every state of the task machine once, starting from its initial state', () => {
    const g = machineGraph(taskMachine);
    expect(g.initial).toBe('unassigned');
    expect(g.nodes.map((n) => n.name).sort()).toEqual(
      ['failed', 'paused', 'running', 'starting', 'stopped', 'stopping', 'unassigned'].sort(),
    );
    expect(g.edges).toContainEqual({ from: 'running', to: 'paused', events: ['PAUSE'] });
    expect(g.nodes.find((n) => n.name === 'failed')?.final).toBe(true);
    // the initial state is in the first column, its targets to its right
    const x = (name: string) => g.nodes.find((n) => n.name === name)!.x;
    expect(x('unassigned')).toBeLessThan(x('starting'));
    expect(x('starting')).toBeLessThan(x('running'));
  });

  it('names nested states by path (connector) and the batch machine’s parallel state by its work region', () => {
    const c = machineGraph(connectorMachine);
    expect(c.nodes.map((n) => n.name)).toEqual(expect.arrayContaining(['up.running', 'up.paused']));
    // a transition from the compound `up` leaves from each of its states
    expect(c.edges.filter((e) => e.to === 'stopping').map((e) => e.from)).toEqual(
      expect.arrayContaining(['up.running', 'up.paused']),
    );
    const b = machineGraph(batchMachine);
    expect(b.nodes.map((n) => n.name).sort()).toEqual(
      ['ackFailed', 'acknowledging', 'acquired', 'done', 'expired', 'putting', 'retrying'].sort(),
    );
    expect(b.edges.find((e) => e.from === 'putting' && e.to === 'acknowledging')?.events).toContain('PUT_OK');
  });

  it('renders an SVG with a node per state and an edge per (from, to)', () => {
    const g = machineGraph(taskMachine);
    const svg = machineSvg(g);
    expect(svg.match(/<g class="node/g)?.length).toBe(g.nodes.length);
    expect(svg.match(/<g class="edge"/g)?.length).toBe(g.edges.length);
    expect(svg).not.toContain('NaN');
  });
});

describe('machinesPage', () => {
  it('is one page whose inline script parses and which loads nothing from elsewhere', () => {
    const html = machinesPage([batchMachine, taskMachine, connectorMachine], 'sharesink');
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(() => new Function(script!)).not.toThrow();
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    expect(html.match(/<svg class="machine"/g)?.length).toBe(3);
  });
});

/** Just enough DOM for the page's script: the nodes and edges of each diagram, parsed from the HTML. */
function fakePage(html: string) {
  const el = (dataset: Record<string, string>, children: Record<string, { textContent: string }> = {}) => {
    const classes = new Set<string>();
    return {
      dataset,
      classes,
      classList: { toggle: (c: string, on: boolean) => void (on ? classes.add(c) : classes.delete(c)) },
      querySelector: (sel: string) => children[sel]!,
    };
  };
  const svgs = [...html.matchAll(/<svg class="machine" data-machine="([^"]+)"[\s\S]*?<\/svg>/g)].map((m) => {
    const nodes = [...m[0].matchAll(/<g class="node[^"]*" data-state="([^"]+)"/g)].map((n) =>
      el({ state: n[1]! }, { '.count': { textContent: '0' } }),
    );
    const edges = [...m[0].matchAll(/<g class="edge" data-from="([^"]+)" data-to="([^"]+)"/g)].map((e) =>
      el({ from: e[1]!, to: e[2]! }, { '.rate': { textContent: '' } }),
    );
    return {
      dataset: { machine: m[1]! },
      nodes,
      edges,
      querySelectorAll: (sel: string) => (sel === 'g.node' ? nodes : edges),
    };
  });
  const byId = new Map<string, { textContent: string }>();
  const document = {
    getElementById: (id: string) => {
      if (!byId.has(id)) byId.set(id, { textContent: '' });
      return byId.get(id);
    },
    querySelectorAll: () => svgs,
  };
  const sources: Array<{ url: string; listeners: Map<string, (m: { data: string }) => void> }> = [];
  class EventSource {
    readonly listeners = new Map<string, (m: { data: string }) => void>();
    constructor(readonly url: string) {
      sources.push(this);
    }
    addEventListener(type: string, fn: (m: { data: string }) => void) {
      this.listeners.set(type, fn);
    }
  }
  return { document, svgs, sources, byId, EventSource };
}

describe('the page script', () => {
  it('subscribes to /machines/events and paints counts and rates from an update', () => {
    const html = machinesPage([batchMachine, taskMachine, connectorMachine], 'sharesink');
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const page = fakePage(html);
    new Function('document', 'location', 'EventSource', script)(
      page.document,
      { pathname: '/machines' },
      page.EventSource,
    );
    expect(page.sources.map((s) => s.url)).toEqual(['/machines/events']);
    page.sources[0]!.listeners.get('machines')!({
      data: JSON.stringify({
        at: 0,
        states: { batch: { putting: 2, 'putting/renewing': 1 }, task: { running: 2 }, connector: {} },
        rates: [{ machine: 'batch', from: 'acquired', to: 'putting', perSecond: 5 }],
        totals: { batch: 40 },
      }),
    });
    const batch = page.svgs.find((s) => s.dataset.machine === 'batch')!;
    const putting = batch.nodes.find((n) => n.dataset.state === 'putting')!;
    expect(putting.querySelector('.count').textContent).toBe('3 (1 renewing)');
    expect(putting.classes.has('busy')).toBe(true);
    const edge = batch.edges.find((e) => e.dataset.from === 'acquired' && e.dataset.to === 'putting')!;
    expect(edge.classes.has('active')).toBe(true);
    expect(edge.querySelector('.rate').textContent).toBe('5.0/s');
    const task = page.svgs.find((s) => s.dataset.machine === 'task')!;
    expect(task.nodes.find((n) => n.dataset.state === 'running')!.querySelector('.count').textContent).toBe(
      '2',
    );
    expect(page.byId.get('total-batch')?.textContent).toBe('40 transitions so far');
  });
});

describe('live counts', () => {
  it('the census counts live actors per state and forgets an actor when it ends', () => {
    const census = createActorCensus();
    const a = createActor(taskMachine, {
      input: { connector: 'c', taskId: 0 },
      inspect: census.inspect,
    }).start();
    const b = createActor(taskMachine, {
      input: { connector: 'c', taskId: 1 },
      inspect: census.inspect,
    }).start();
    a.send({ type: 'ASSIGN' });
    expect(census.counts()).toEqual({ task: { starting: 1, unassigned: 1 } });
    b.send({ type: 'STOP' }); // unassigned → stopped: final, no longer live
    expect(census.counts()).toEqual({ task: { starting: 1 } });
    a.stop();
    expect(census.counts()).toEqual({});
  });

  it('the rate tracker turns cumulative counts into transitions per second over about a second', () => {
    const r = new RateTracker(1000);
    const at = (count: number) => [{ machine: 'batch', from: 'acquired', to: 'putting', count }];
    expect(r.update(0, at(0))).toEqual([]);
    expect(r.update(500, at(10))).toEqual([
      { machine: 'batch', from: 'acquired', to: 'putting', perSecond: 20 },
    ]);
    expect(r.update(1000, at(20))).toEqual([
      { machine: 'batch', from: 'acquired', to: 'putting', perSecond: 20 },
    ]);
    r.update(2000, at(20));
    expect(r.update(2500, at(20))).toEqual([]);
  });
});
