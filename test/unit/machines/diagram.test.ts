import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { batchMachine } from '../../../src/machines/batch.js';
import { connectorMachine } from '../../../src/machines/connector.js';
import { toMermaid } from '../../../src/machines/diagram.js';
import { taskMachine } from '../../../src/machines/task.js';

const machines = { batch: batchMachine, task: taskMachine, connector: connectorMachine };

describe('toMermaid', () => {
  it('draws states, initial states, finals, parallel regions and guarded edges', () => {
    const text = toMermaid(batchMachine);
    expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(text).toContain('[*] --> batch_active\n');
    expect(text).toContain('state "work" as batch_active_work {');
    expect(text).toMatch(/\n {4}--\n {4}state "lease"/);
    expect(text).toContain('batch_expired --> [*]');
    expect(text).toContain('batch_active_work_putting --> batch_expired : LOCK_EXPIRED [isShare]');
    expect(text).toContain('batch_active_lease_renewing --> batch_active_lease_held : RENEWED [isShare]');
  });

  it('draws every transition of every machine once per target', () => {
    for (const machine of Object.values(machines)) {
      const edges = toMermaid(machine)
        .split('\n')
        .filter((l) => l.includes(' : '));
      let expected = 0;
      const visit = (node: typeof machine.root) => {
        for (const ts of node.transitions.values()) for (const t of ts) expected += t.target?.length ?? 1;
        Object.values(node.states).forEach(visit);
      };
      visit(machine.root);
      expect(edges).toHaveLength(expected);
    }
  });

  it('names inline guards and draws targetless transitions as self-loops', () => {
    const m = setup({}).createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          on: {
            TICK: {
              guard: function ready() {
                return true;
              },
            },
          },
        },
      },
    });
    expect(toMermaid(m)).toContain('m_a --> m_a : TICK [ready]');
  });
});

describe('docs/machines.md', () => {
  const doc = readFileSync(new URL('../../../docs/machines.md', import.meta.url), 'utf8');
  it.each(Object.entries(machines))('shows the current %s diagram', (name, machine) => {
    // Stale? Regenerate the block with toMermaid(${name}Machine) from src/machines/diagram.ts.
    expect(doc, `docs/machines.md has a stale ${name} diagram`).toContain(
      '```mermaid\n' + toMermaid(machine) + '```',
    );
  });
});
