/**
 * The bridge between what the runtime counts and what the page draws: for every configuration a
 * machine can be in (one leaf per region of a parallel state), the name the actor census and the
 * transition counter give it (`putting/renewing`, `up.running`) and the drawn states it lights (the
 * leaves and every container around them). Computed once per machine on the server, so the page's
 * script needs no knowledge of any machine.
 */
import type { AnyStateMachine, AnyStateNode, StateValue } from 'xstate';
import { batchStateName, type BatchSnapshot } from '../../machines/batch.js';
import { stateValueName } from '../../observability/transition-counter.js';
import { stateKeys } from './machine-graph.js';

export interface LiveNames {
  /** Runtime state name → keys of the drawn states active in it. */
  readonly active: Readonly<Record<string, readonly string[]>>;
  /**
   * Runtime state name → [state key, note]: a leaf of a later region of a parallel state that is not
   * that region's initial state, shown beside the count of the first region's leaf (`3 (1 renewing)`).
   */
  readonly notes: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>>;
}

/** The name the census and the transition counter use (observability/actor-census.ts does the same). */
function runtimeName(machineId: string, value: StateValue): string {
  return machineId === 'batch'
    ? batchStateName({ value } as unknown as BatchSnapshot)
    : stateValueName(value);
}

interface Configuration {
  value: StateValue;
  /** Active state nodes, containers included, outermost first. */
  nodes: AnyStateNode[];
}

/** Guards against a definition whose parallel regions multiply into more than a page can show. */
const MAX_CONFIGURATIONS = 10_000;

function configurations(node: AnyStateNode): Configuration[] {
  const kids = Object.values(node.states) as AnyStateNode[];
  if (kids.length === 0) return [{ value: {}, nodes: [] }];
  if (node.type === 'parallel') {
    let product: Configuration[] = [{ value: {}, nodes: [] }];
    for (const region of kids) {
      const inner = configurations(region);
      product = product.flatMap((p) =>
        inner.map((c) => ({
          value: { ...(p.value as object), [region.key]: c.value } as StateValue,
          nodes: [...p.nodes, region, ...c.nodes],
        })),
      );
      if (product.length > MAX_CONFIGURATIONS) throw new Error(`${node.id}: too many configurations to draw`);
    }
    return product;
  }
  return kids.flatMap((child) =>
    configurations(child).map((c) => ({
      // a leaf is named by its key, a container by an object of its children, as XState values are
      value: Object.keys(child.states).length === 0 ? child.key : { [child.key]: c.value },
      nodes: [child, ...c.nodes],
    })),
  );
}

export function liveNames(machine: AnyStateMachine): LiveNames {
  const keys = stateKeys(machine);
  const active: Record<string, string[]> = {};
  const notes: Record<string, Array<[string, string]>> = {};
  for (const config of configurations(machine.root)) {
    const name = runtimeName(machine.id, config.value);
    active[name] = config.nodes.map((n) => keys.get(n)!);
    const noted: Array<[string, string]> = [];
    for (const parallel of config.nodes.filter((n) => n.type === 'parallel')) {
      const [first, ...later] = (Object.values(parallel.states) as AnyStateNode[]).map((region) =>
        config.nodes.find((n) => Object.keys(n.states).length === 0 && isInside(n, region)),
      );
      if (first === undefined) continue;
      later.forEach((leaf, i) => {
        const region = (Object.values(parallel.states) as AnyStateNode[])[i + 1]!;
        if (leaf !== undefined && leaf !== region.initial?.target[0])
          noted.push([keys.get(first)!, leaf.key]);
      });
    }
    if (noted.length > 0) notes[name] = noted;
  }
  return { active, notes };
}

function isInside(node: AnyStateNode, ancestor: AnyStateNode): boolean {
  for (let n: AnyStateNode | undefined = node; n !== undefined; n = n.parent) if (n === ancestor) return true;
  return false;
}
