// docs/architecture.md's module table is the layering: each src/ folder's "Depends on" must be exactly
// the folders its files import, each of them on a lower layer; rest/ and cli/ are imported by nothing
// else (but the public entry src/index.ts), distributed/ by nothing below it.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder of a file under src/, or undefined for the shared files at src/'s root. */
function folderOf(file: string): string | undefined {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? undefined : parts[0];
}

/** folder -> folder -> the first file that makes the import, for the messages. */
function importGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(SRC)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const to = folderOf(path.resolve(path.dirname(file), m[1]!));
      if (to === undefined || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, path.relative(ROOT, file));
      graph.set(from, edges);
    }
  }
  return graph;
}

interface Row {
  layer: number;
  folder: string;
  dependsOn: string[];
}

/** The rows of the "| Layer | Folder | Job | Depends on |" table. */
function documentedLayers(): Row[] {
  const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const rows: Row[] = [];
  for (const line of doc.split('\n')) {
    const m = /^\| (\d+) \| `src\/([a-z-]+)\/` \| .* \| ([^|]+) \|$/.exec(line);
    if (m === null) continue;
    const deps = m[3]!.trim();
    rows.push({
      layer: Number(m[1]),
      folder: m[2]!,
      dependsOn: deps === 'nothing' ? [] : deps.split(',').map((d) => d.trim()),
    });
  }
  return rows;
}

describe('layers (docs/architecture.md)', () => {
  const rows = documentedLayers();
  const graph = importGraph();
  const layerOf = new Map(rows.map((r) => [r.folder, r.layer]));

  it('lists every folder of src/ once', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(path.join(SRC, n)).isDirectory());
    expect(rows.map((r) => r.folder).sort()).toEqual(folders.sort());
  });

  it('says exactly what each folder imports', () => {
    const problems: string[] = [];
    for (const r of rows) {
      const edges = graph.get(r.folder) ?? new Map<string, string>();
      for (const [to, file] of edges)
        if (!r.dependsOn.includes(to))
          problems.push(`src/${r.folder}/ imports ${to}/ (${file}), which its "Depends on" does not list`);
      for (const d of r.dependsOn)
        if (!edges.has(d))
          problems.push(`src/${r.folder}/ lists ${d} in "Depends on" but imports nothing of it`);
    }
    expect(problems, 'fix the imports or the table in docs/architecture.md').toEqual([]);
  });

  it('imports only from lower layers', () => {
    const problems: string[] = [];
    for (const r of rows)
      for (const [to, file] of graph.get(r.folder) ?? [])
        if ((layerOf.get(to) ?? Infinity) >= r.layer)
          problems.push(
            `src/${r.folder}/ (layer ${r.layer}) imports ${to}/ (layer ${layerOf.get(to)}) in ${file}`,
          );
    expect(problems).toEqual([]);
  });

  it('nothing outside rest/ and cli/ imports them; nothing below distributed/ imports it', () => {
    const problems: string[] = [];
    const distributed = layerOf.get('distributed')!;
    for (const [from, edges] of graph)
      for (const [to, file] of edges) {
        if ((to === 'rest' || to === 'cli') && from !== 'rest' && from !== 'cli')
          problems.push(`${file} imports src/${to}/`);
        if (to === 'distributed' && (layerOf.get(from) ?? 0) < distributed)
          problems.push(`${file} imports src/distributed/`);
      }
    expect(problems).toEqual([]);
  });
});
