import { describe, expect, it } from 'vitest';
import { errorBody } from '../../../../src/rest/server/errors.js';
import { Router } from '../../../../src/rest/server/router.js';

const ok = () => ({ status: 200 });

describe('Router', () => {
  const router = new Router()
    .add('GET', '/connectors', ok)
    .add('GET', '/connectors/:name/tasks/:task/status', ok)
    .add('PUT', '/connectors/:name/pause', ok);

  it('matches patterns and decodes parameters', () => {
    expect(router.match('GET', '/connectors/orders%2Fv2/tasks/3/status').params).toEqual({
      name: 'orders/v2',
      task: '3',
    });
    expect(router.match('GET', '/connectors/').params).toEqual({});
  });

  it('answers 404 for an unknown path and 405 for a known path with another method, in Connect’s error JSON', () => {
    const notFound = (() => {
      try {
        router.match('GET', '/nope');
      } catch (err) {
        return errorBody(err);
      }
    })();
    expect(notFound).toEqual({ status: 404, body: { error_code: 404, message: 'Unknown endpoint /nope' } });
    const wrongMethod = (() => {
      try {
        router.match('GET', '/connectors/a/pause');
      } catch (err) {
        return errorBody(err);
      }
    })();
    expect(wrongMethod?.status).toBe(405);
    expect(wrongMethod?.body.error_code).toBe(405);
  });

  it('turns a malformed escape into 400, and an unexpected error into 500', () => {
    expect(() => router.match('GET', '/connectors/%E0%A4%A/tasks/1/status')).toThrow(/Malformed/);
    expect(errorBody(new Error('boom'))).toEqual({ status: 500, body: { error_code: 500, message: 'boom' } });
  });
});
