import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PREDICATE_LIST,
  BUILTIN_TRANSFORM_LIST,
} from '../../../../src/connect/transforms/builtins.js';
import { TRANSFORMS_DOC, withReference } from '../../../../scripts/transforms-docs.js';

describe('docs/transforms.md', () => {
  const doc = readFileSync(TRANSFORMS_DOC, 'utf8');

  it('has a current generated reference (run `npm run docs:config` when this fails)', () => {
    expect(withReference(doc) === doc, 'docs/transforms.md is stale').toBe(true);
  });

  it('documents every built-in by its class name, with every setting', () => {
    for (const item of [...BUILTIN_TRANSFORM_LIST, ...BUILTIN_PREDICATE_LIST]) {
      expect(doc).toContain(`\`${item.className}\``);
      for (const key of item.def.configKeys()) expect(doc).toContain(`| \`${key.name}\` |`);
    }
  });
});
