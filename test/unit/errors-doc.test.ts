import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('docs/errors.md', () => {
  it('documents every error code used in src/', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
    const used = new Set<string>();
    for (const file of sources(path.join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/'(SHARESINK_[A-Z_]+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter((code) => !doc.includes(`\`${code}\``)).sort();
    expect(missing).toEqual([]);
  });
});
