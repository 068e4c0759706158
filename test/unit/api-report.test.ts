// The public surface is checked in as api/sharesink.api.md: a change to what `sharesink` or
// `sharesink/testing` exports (a name, a signature, a field) fails here until the report is rewritten,
// so the change shows in review.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_PATH, generateApiReport } from '../../scripts/api-report.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('public API report', () => {
  // one declaration emit of src/ (what `npm run build` does without writing): tens of seconds on a busy machine
  it(`${REPORT_PATH} is the surface src/ exports`, { timeout: 240_000 }, () => {
    const report = generateApiReport(ROOT);
    expect(report).toContain('### Worker\n');
    expect(report, 'run `npm run api:report`, review the diff of api/sharesink.api.md and commit it').toBe(
      readFileSync(path.join(ROOT, REPORT_PATH), 'utf8'),
    );
  });
});
