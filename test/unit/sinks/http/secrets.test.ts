import { describe, expect, it } from 'vitest';
import { httpSinkSettings } from '../../../../src/sinks/http/config.js';
import { Redactor, displayUrl, isSensitiveHeader } from '../../../../src/sinks/http/secrets.js';

describe('HttpSink secret masking', () => {
  it('redacts every configured secret, longest first', () => {
    const r = new Redactor(['abcd', 'abcdefgh', 'xy']);
    expect(r.redact('token abcdefgh and abcd, not xy')).toBe('token [hidden] and [hidden], not xy');
  });

  it('collects the auth password, its Basic encoding, the token and credential-bearing header values', () => {
    const basic = httpSinkSettings({
      'http.url': 'http://h/x',
      'http.auth.type': 'basic',
      'http.auth.user': 'sink',
      'http.auth.password': 'pa55word',
      'http.headers': 'X-Api-Key:key-12345|X-Tenant:shop',
    });
    const encoded = Buffer.from('sink:pa55word').toString('base64');
    expect(basic.redactor.redact(`echo pa55word ${encoded} key-12345 shop`)).toBe(
      'echo [hidden] [hidden] [hidden] shop',
    );
    const bearer = httpSinkSettings({
      'http.url': 'http://h/x',
      'http.auth.type': 'bearer',
      'http.auth.token': 'tok-987',
      'http.headers.X-Session-Token': 'sess-555',
    });
    expect(bearer.redactor.redact('tok-987 sess-555')).toBe('[hidden] [hidden]');
  });

  it('names sensitive headers by convention', () => {
    for (const name of [
      'X-Custom-Auth',
      'X-Session-Id',
      'X-Hub-Signature',
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'X-Api-Key',
      'X-Auth-Token',
      'Client-Secret',
    ]) {
      expect(isSensitiveHeader(name), name).toBe(true);
    }
    for (const name of ['Content-Type', 'X-Tenant', 'Accept'])
      expect(isSensitiveHeader(name), name).toBe(false);
  });

  it('shows URLs without user info or query values', () => {
    expect(displayUrl(new URL('https://u:p@h.example:8443/a/b?token=t&x=1'))).toBe(
      'https://h.example:8443/a/b?…',
    );
    expect(displayUrl(new URL('http://h/a'))).toBe('http://h/a');
  });
});
