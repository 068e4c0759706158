import { describe, expect, it } from 'vitest';
import { describeConnectorProblems } from '../../../src/actors/connector-checks.js';

describe('describeConnectorProblems', () => {
  it('names the connector, and the key only where the problem does not start with it', () => {
    const problems = new Map([
      ['http.url', ['http.url: is required and has no value']],
      ['batch.size', ['must be positive']],
      ['', ['url and topic disagree']],
    ]);
    expect(describeConnectorProblems('h', problems)).toEqual([
      'h: http.url: is required and has no value',
      'h: batch.size: must be positive',
      'h: url and topic disagree',
    ]);
  });
});
