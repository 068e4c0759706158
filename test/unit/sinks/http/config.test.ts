import { describe, expect, it } from 'vitest';
import { loadConnectorModule, resolveConnectorModule } from '../../../../src/connect/connector-module.js';
import { ConfigError } from '../../../../src/errors.js';
import { HttpSinkConnector, HttpSinkTask } from '../../../../src/sinks/http/index.js';
import { httpSinkSettings, validateHttpSink } from '../../../../src/sinks/http/config.js';

const URL = 'http://127.0.0.1:8080/ingest/${topic}';

function problems(props: Record<string, string>): string[] {
  return [...validateHttpSink(props).values()].flat();
}

describe('HttpSink config', () => {
  it('defaults: POST, json_array, 500 records per request, retry 408/429/5xx, success 2xx, errant', () => {
    const cfg = httpSinkSettings({ 'http.url': URL });
    expect(cfg).toMatchObject({
      method: 'POST',
      format: 'json_array',
      batchMaxSize: 500,
      timeoutMs: 30_000,
      maxInFlight: 1,
      onError: 'errant',
      idempotencyHeader: null,
      headers: [],
    });
    expect([200, 204, 299].every((s) => cfg.success.has(s))).toBe(true);
    expect(cfg.success.has(300)).toBe(false);
    expect([401, 403, 404, 405, 407, 408, 415, 429, 500, 503, 599].every((s) => cfg.retriable.has(s))).toBe(
      true,
    );
    // what a request's records can be blamed for stays a refusal
    expect([400, 409, 413, 422].some((s) => cfg.retriable.has(s))).toBe(false);
  });

  it('lists every problem at once, each with its key', () => {
    const error = (() => {
      try {
        httpSinkSettings({
          'http.method': 'DELETE',
          'batch.max.size': '0',
          'request.body.format': 'xml',
          'retry.on.status.codes': '500-400,abc',
        });
      } catch (e) {
        return e;
      }
    })() as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('SHARESINK_CONFIG_INVALID');
    const text = error.problems.join('\n');
    expect(error.problems).toHaveLength(5);
    expect(text).toContain('http.url: is required');
    expect(text).toContain(
      'http.method: "DELETE" is not one of the accepted values; accepted: a string, one of POST, PUT, PATCH',
    );
    expect(text).toContain('batch.max.size: "0" is less than 1');
    expect(text).toContain('request.body.format: "xml"');
    expect(text).toContain(
      'retry.on.status.codes: "500-400,abc" has "500-400", which is a descending range, and "abc", which is not a status code or a range; accepted:',
    );
  });

  it('a bad status list names the key, the value once, each bad entry and what is accepted', () => {
    const accepted =
      'accepted: a comma-separated list, each entry a status code or an ascending range within 100..599 (e.g. 408,429,500-599)';
    const of = (value: string): string[] =>
      problems({ 'http.url': URL, 'retry.on.status.codes': value, 'http.success.status.codes': value });
    expect(of('5xx')).toEqual([
      `retry.on.status.codes: "5xx" is not a status code or a range; ${accepted}`,
      `http.success.status.codes: "5xx" is not a status code or a range; ${accepted}`,
    ]);
    expect(of('600')[0]).toBe(`retry.on.status.codes: "600" is outside 100..599; ${accepted}`);
    expect(of('599-500')[0]).toBe(`retry.on.status.codes: "599-500" is a descending range; ${accepted}`);
    expect(of('408, 5xx ,429')[0]).toBe(
      `retry.on.status.codes: "408, 5xx ,429" has "5xx", which is not a status code or a range; ${accepted}`,
    );
  });

  it('header, auth and URL problems are listed together with problems of declared keys', () => {
    expect(
      problems({
        'http.url': 'ftp://h/x',
        'http.method': 'GET',
        'http.headers': 'oops',
        'http.auth.type': 'digest',
        'http.auth.token': 'tok',
        'request.body.format': 'raw',
      }),
    ).toEqual([
      'http.method: "GET" is not one of the accepted values; accepted: a string, one of POST, PUT, PATCH',
      'http.auth.type: "digest" is not one of the accepted values; accepted: a string, one of none, basic, bearer',
      'http.url: has scheme ftp; accepted: http or https',
      'http.headers: entry 1 is not Name:value (entries are separated by "|", see http.header.separator)',
      // the token is not judged against an http.auth.type that did not parse
      "batch.max.size: is 500, but request.body.format=raw sends one record's bytes per request; set batch.max.size=1",
    ]);
    expect(problems({ 'http.headers': 'oops' })).toEqual([
      'http.url: is required and has no value; accepted: a string, a non-empty string',
      'http.headers: entry 1 is not Name:value (entries are separated by "|", see http.header.separator)',
    ]);
  });

  it('checks the URL without echoing credentials or the query', () => {
    expect(problems({ 'http.url': 'not a url' })).toEqual([
      'http.url: is not an absolute URL; accepted: http://host[:port]/path or https://…, ${topic} allowed',
    ]);
    expect(problems({ 'http.url': 'ftp://h/x' })).toEqual([
      'http.url: has scheme ftp; accepted: http or https',
    ]);
    const [withUser] = problems({ 'http.url': 'https://bob:s3cr3t@h.example/in?api_key=k3y' });
    expect(withUser).toContain('https://h.example/in?…');
    expect(withUser).toContain('http.auth.type=basic');
    expect(withUser).not.toMatch(/s3cr3t|bob|k3y/);
    expect(problems({ 'http.url': URL })).toEqual([]);
  });

  it('reads http.headers with a configurable separator and http.headers.<name>', () => {
    const cfg = httpSinkSettings({
      'http.url': URL,
      'http.headers': 'Content-Type:application/vnd.x+json | X-Tenant: shop|',
      'http.headers.X-Trace': 'abc:def',
    });
    expect(cfg.headers).toEqual([
      ['Content-Type', 'application/vnd.x+json'],
      ['X-Tenant', 'shop'],
      ['X-Trace', 'abc:def'],
    ]);
    const semi = httpSinkSettings({
      'http.url': URL,
      'http.headers': 'A:1;B:2|3',
      'http.header.separator': ';',
    });
    expect(semi.headers).toEqual([
      ['A', '1'],
      ['B', '2|3'],
    ]);
  });

  it('reports bad headers by key, never showing a value', () => {
    const list = problems({
      'http.url': URL,
      'http.headers': 'Bearer s3cr3t-token|Bad Name:v|Content-Length:5|X-A:1',
      'http.headers.x-a': '2',
      'http.headers.X-Line': 'a\r\nInjected: yes',
    });
    expect(list).toEqual([
      'http.headers: entry 1 is not Name:value (entries are separated by "|", see http.header.separator)',
      'http.headers: "Bad Name" is not a valid header name (letters, digits, -, and !#$%&\'*+.^_`|~)',
      'http.headers: header Content-Length is set by the HTTP client from the request; remove it',
      'http.headers.x-a: header x-a is also set by http.headers; set each header once',
      'http.headers.X-Line: the value of header X-Line contains a line break or NUL, which HTTP forbids',
    ]);
    expect(list.join('\n')).not.toContain('s3cr3t');
  });

  it('auth: basic and bearer build the Authorization header; missing or unused credentials are problems', () => {
    const basic = httpSinkSettings({
      'http.url': URL,
      'http.auth.type': 'basic',
      'http.auth.user': 'sink',
      'http.auth.password': 'pa55word',
    });
    expect(basic.headers).toEqual([
      ['Authorization', `Basic ${Buffer.from('sink:pa55word').toString('base64')}`],
    ]);
    const bearer = httpSinkSettings({
      'http.url': URL,
      'http.auth.type': 'BEARER',
      'http.auth.token': 't0ken-1',
    });
    expect(bearer.headers).toEqual([['Authorization', 'Bearer t0ken-1']]);

    expect(problems({ 'http.url': URL, 'http.auth.type': 'basic' })).toEqual([
      'http.auth.user: is required for http.auth.type=basic',
      'http.auth.password: is required for http.auth.type=basic',
    ]);
    expect(problems({ 'http.url': URL, 'http.auth.type': 'bearer' })).toEqual([
      'http.auth.token: is required for http.auth.type=bearer',
    ]);
    expect(problems({ 'http.url': URL, 'http.auth.token': 'x' })).toEqual([
      'http.auth.token: is set but http.auth.type=none does not use it; set http.auth.type or remove it',
    ]);
    expect(
      problems({
        'http.url': URL,
        'http.auth.type': 'bearer',
        'http.auth.token': 't',
        'http.headers.Authorization': 'Bearer other',
      }),
    ).toEqual(['http.auth.type: is bearer but an Authorization header is configured too; keep one of them']);
  });

  it('a Basic user name cannot contain a colon', () => {
    const list = problems({
      'http.url': URL,
      'http.auth.type': 'basic',
      'http.auth.user': 'a:b',
      'http.auth.password': 'pw',
    });
    expect(list).toEqual(['http.auth.user: contains ":", which Basic authentication cannot carry']);
  });

  it('raw needs batch.max.size=1; the idempotency header must be a header name set nowhere else', () => {
    expect(problems({ 'http.url': URL, 'request.body.format': 'raw' })).toEqual([
      "batch.max.size: is 500, but request.body.format=raw sends one record's bytes per request; set batch.max.size=1",
    ]);
    expect(problems({ 'http.url': URL, 'request.body.format': 'raw', 'batch.max.size': '1' })).toEqual([]);
    expect(problems({ 'http.url': URL, 'http.idempotency.header': 'Idem Key' })).toEqual([
      'http.idempotency.header: "Idem Key" is not a valid header name',
    ]);
    expect(
      problems({
        'http.url': URL,
        'http.idempotency.header': 'Idempotency-Key',
        'http.headers': 'idempotency-key:x',
      }),
    ).toEqual([
      'http.idempotency.header: Idempotency-Key is also configured as a fixed header; it is set per request',
    ]);
  });

  it('connector.class=HttpSink (and HttpSinkConnector, http) resolves to this connector', async () => {
    for (const name of ['HttpSink', 'HttpSinkConnector', 'http']) {
      const module = await loadConnectorModule(resolveConnectorModule(name));
      expect(module.task).toBe(HttpSinkTask);
      expect(module.connector).toBe(HttpSinkConnector);
    }
    const connector = new HttpSinkConnector();
    expect([...connector.validate({}).keys()]).toEqual(['http.url']);
    expect(() => connector.start({ 'http.url': 'nope' })).toThrow(ConfigError);
    connector.start({ 'http.url': URL, 'http.auth.type': 'bearer', 'http.auth.token': 'tok' });
    expect(connector.taskConfigs(3)).toHaveLength(3);
  });
});
