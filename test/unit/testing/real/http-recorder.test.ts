import { afterEach, describe, expect, it } from 'vitest';
import { startHttpRecorder, type HttpRecorder } from '../../../../src/testing/real/http-recorder.js';
import { pointAtRecorder } from '../../../../src/testing/real/observers/http.js';

let recorder: HttpRecorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers }).then((r) => r.status);

describe('the HTTP recorder of sharesink check --record-http', () => {
  it('keeps every body, a body sent twice twice', async () => {
    recorder = await startHttpRecorder();
    expect(await post(`${recorder.url}/a`, '["x1"]')).toBe(200);
    expect(await post(`${recorder.url}/a`, '["x1"]')).toBe(200);
    expect(recorder.bodies()).toEqual(['["x1"]', '["x1"]']);
  });

  it('keeps a request whose idempotency key it has seen once, as a receiver honouring the key', async () => {
    recorder = await startHttpRecorder({ idempotencyHeader: 'Idempotency-Key' });
    await post(recorder.url, '["x1"]', { 'Idempotency-Key': 'k1' });
    await post(recorder.url, '["x1"]', { 'idempotency-key': 'k1' });
    await post(recorder.url, '["x2"]', { 'Idempotency-Key': 'k2' });
    await post(recorder.url, '["x3"]');
    expect(recorder.bodies()).toEqual(['["x1"]', '["x2"]', '["x3"]']);
  });
});

describe('pointAtRecorder', () => {
  it('replaces the scheme and host of http.url, keeping its path, query and ${topic}', () => {
    const to = (url: string) =>
      pointAtRecorder({ 'http.url': url, 'batch.max.size': '1' }, 'http://127.0.0.1:4000');
    expect(to('https://user.example.com:8443/ingest/${topic}?a=1')).toEqual({
      'http.url': 'http://127.0.0.1:4000/ingest/${topic}?a=1',
      'batch.max.size': '1',
    });
    expect(to('http://example.com')['http.url']).toBe('http://127.0.0.1:4000/');
  });
});
