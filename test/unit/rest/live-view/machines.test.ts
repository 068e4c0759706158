// The live view's graph and counters: drawn from the machine definitions, named as the runtime names states.
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { batchMachine } from '../../../../src/machines/batch.js';
import { connectorMachine } from '../../../../src/machines/connector.js';
import { taskMachine } from '../../../../src/machines/task.js';
import { createActorCensus } from '../../../../src/observability/actor-census.js';
import { machineGraph } from '../../../../src/rest/live-view/machine-graph.js';
import { RateTracker } from '../../../../src/rest/live-view/machine-events.js';
import { liveNames } from '../../../../src/rest/live-view/machine-live-names.js';
import { machinesPage } from '../../../../src/rest/live-view/machines-page.js';

/** The first page lays the machines out, loading elkjs; on a busy machine that takes seconds. */
const SLOW = 60_000;
let page: Promise<string> | undefined;
const fullPage = () => (page ??= machinesPage([batchMachine, taskMachine, connectorMachine], 'sharesink'));

describe('machineGraph', () => {
  it('reads every state of the task machine once, starting from its initial state', () => {
    const g = machineGraph(taskMachine);
    expect(g.initial).toBe('unassigned');
    expect(g.states.map((s) => s.key).sort()).toEqual(
      ['failed', 'paused', 'running', 'starting', 'stopped', 'stopping', 'unassigned'].sort(),
    );
    expect(g.edges).toContainEqual({ from: 'running', to: 'paused', events: ['PAUSE'], internal: false });
    expect(g.states.find((s) => s.key === 'failed')?.kind).toBe('final');
  });

  it('names nested states by path (connector) and keeps containers and both parallel regions (batch)', () => {
    const c = machineGraph(connectorMachine);
    expect(c.states.map((s) => s.key)).toEqual(expect.arrayContaining(['up', 'up.running', 'up.paused']));
    expect(c.states.find((s) => s.key === 'up')).toMatchObject({ kind: 'compound', initial: 'up.running' });
    // a transition the compound `up` defines leaves from `up` itself, as the definition says
    expect(c.edges.filter((e) => e.to === 'stopping').map((e) => e.from)).toContain('up');
    // a transition without a target is drawn as a loop, not dropped
    expect(c.edges.find((e) => e.from === 'created' && e.to === 'created')).toMatchObject({ internal: true });
    const b = machineGraph(batchMachine);
    expect(b.states.find((s) => s.key === 'active')).toMatchObject({
      kind: 'parallel',
      children: ['work', 'lease'],
    });
    expect(b.states.find((s) => s.key === 'lease')).toMatchObject({
      kind: 'region',
      initial: 'held',
      children: ['held', 'renewing'],
    });
    expect(b.edges.find((e) => e.from === 'putting' && e.to === 'acknowledging')?.events).toContain('PUT_OK');
    expect(b.edges.find((e) => e.from === 'held' && e.to === 'renewing')?.events).toEqual([
      'LOCK_RENEW_DUE [isShare]',
    ]);
  });

  it('maps every runtime state name to the drawn states it lights, containers included', () => {
    const b = liveNames(batchMachine);
    expect(b.active['putting/renewing']).toEqual(['active', 'work', 'putting', 'lease', 'renewing']);
    expect(b.active['acknowledging']).toEqual(['acknowledging']);
    expect(b.notes['putting/renewing']).toEqual([['putting', 'renewing']]);
    expect(b.notes['putting']).toBeUndefined();
    expect(liveNames(connectorMachine).active['up.paused']).toEqual(['up', 'up.paused']);
  });
});

describe('machinesPage', () => {
  it(
    "says why the batch machine's final states always count 0 (a batch actor ends there)",
    async () => {
      const sub = /<p class="sub">([\s\S]*?)<\/p>/.exec(await fullPage())![1]!;
      expect(sub).toMatch(/<code>done<\/code>, <code>ackFailed<\/code> and <code>expired<\/code> stay at 0/);
    },
    SLOW,
  );

  it(
    'is one page whose inline script parses and which loads nothing from elsewhere',
    async () => {
      const html = await fullPage();
      const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect(() => new Function(script!)).not.toThrow();
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
      expect(html.match(/<svg class="machine"/g)?.length).toBe(3);
      // scaled to its section rather than scrolled: the drawing keeps its proportions in a view box
      expect(html).toMatch(/svg\.machine\{[^}]*max-width:100%;height:auto/);
      expect(html).not.toContain('NaN');
    },
    SLOW,
  );

  it(
    'draws a node per state and an edge per (from, to), both regions of the batch machine included',
    async () => {
      const html = /<svg class="machine" data-machine="batch"[\s\S]*?<\/svg>/.exec(await fullPage())![0];
      const g = machineGraph(batchMachine);
      expect(html.match(/<g class="node[^"]*" data-state=/g)?.length).toBe(g.states.length);
      expect(html.match(/<g class="edge" data-from=/g)?.length).toBe(g.edges.length);
      expect(html).toContain('<g class="node container region" data-state="lease"');
      expect(html).toContain('data-state="renewing"');
    },
    SLOW,
  );
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
  it(
    'subscribes to /machines/events and paints counts and rates from an update',
    async () => {
      const html = await fullPage();
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
      // the lease region: 1 batch renewing, 2 holding; containers count every batch inside them
      const count = (key: string) =>
        batch.nodes.find((n) => n.dataset.state === key)!.querySelector('.count');
      expect(count('renewing').textContent).toBe('1');
      expect(count('held').textContent).toBe('2');
      expect(count('active').textContent).toBe('3');
      expect(count('acknowledging').textContent).toBe('0');
    },
    SLOW,
  );

  it(
    'lights the edge a runtime transition took, and only that one',
    async () => {
      const html = await fullPage();
      const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
      const page = fakePage(html);
      new Function('document', 'location', 'EventSource', script)(
        page.document,
        { pathname: '/machines' },
        page.EventSource,
      );
      page.sources[0]!.listeners.get('machines')!({
        data: JSON.stringify({
          at: 0,
          states: {},
          rates: [
            { machine: 'batch', from: 'putting', to: 'putting/renewing', perSecond: 2 },
            { machine: 'batch', from: 'putting/renewing', to: 'acknowledging', perSecond: 3 },
            { machine: 'connector', from: 'starting', to: 'up.running', perSecond: 1 },
            { machine: 'connector', from: 'created', to: 'created', perSecond: 4 },
          ],
          totals: {},
        }),
      });
      const lit = (machine: string) =>
        page.svgs
          .find((s) => s.dataset.machine === machine)!
          .edges.filter((e) => e.classes.has('active'))
          .map((e) => `${e.dataset.from}>${e.dataset.to} ${e.querySelector('.rate').textContent}`)
          .sort();
      expect(lit('batch')).toEqual(['held>renewing 2.0/s', 'putting>acknowledging 3.0/s']);
      // STARTED into `up` (entering its initial state), not the guarded STARTED into `up.paused`
      expect(lit('connector')).toEqual(['created>created 4.0/s', 'starting>up 1.0/s']);
    },
    SLOW,
  );
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
