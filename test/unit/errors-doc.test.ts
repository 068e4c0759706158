import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARESINK_ERROR_CODES } from '../../src/error-codes.js';

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

  it('has one row per code of the SharesinkErrorCode union, in the same order (src/error-codes.ts)', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `(SHARESINK_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.length).toBeGreaterThan(40);
    expect(new Set(rows).size, 'a code has two rows in docs/errors.md').toBe(rows.length);
    expect(rows, 'docs/errors.md and SHARESINK_ERROR_CODES in src/error-codes.ts differ').toEqual([
      ...SHARESINK_ERROR_CODES,
    ]);
  });
});
