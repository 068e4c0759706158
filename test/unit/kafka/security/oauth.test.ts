import { describe, expect, it } from 'vitest';
import { ClientCredentialsTokenProvider, OAuthTokenError } from '../../../../src/kafka/security/oauth.js';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import { HiddenValue } from '../../../../src/kafka/security/types.js';

function endpoint(answers: Array<{ status: number; body: unknown }>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return new Response(JSON.stringify(a.body), { status: a.status });
  };
  return { calls, fetch };
}

const credentials = {
  tokenEndpoint: 'https://idp.example.com/token',
  clientId: 'svc:1',
  clientSecret: new HiddenValue('p@ss'),
  scope: 'kafka',
};

describe('OAUTHBEARER client credentials tokens', () => {
  it('asks with basic auth and the scope, keeps the token until 80% of its lifetime, then asks again', async () => {
    let now = 1_000_000;
    const idp = endpoint([
      { status: 200, body: { access_token: 'tok-1', expires_in: 100 } },
      { status: 200, body: { access_token: 'tok-2', expires_in: 100 } },
    ]);
    const p = new ClientCredentialsTokenProvider(credentials, { fetch: idp.fetch, now: () => now });
    const [a, b] = await Promise.all([p.provider(), p.provider()]);
    expect([a.value, b.value]).toEqual(['tok-1', 'tok-1']);
    expect(idp.calls).toHaveLength(1); // connections authenticating at once share one request
    const init = idp.calls[0]!.init;
    const headers = init.headers as Record<string, string>;
    expect(Buffer.from(headers['authorization']!.slice('Basic '.length), 'base64').toString()).toBe(
      'svc%3A1:p%40ss',
    );
    expect(String(init.body)).toBe('grant_type=client_credentials&scope=kafka');
    now += 79_000;
    expect((await p.provider()).value).toBe('tok-1');
    now += 2_000;
    expect((await p.provider()).value).toBe('tok-2');
    expect(idp.calls).toHaveLength(2);
  });

  it('a refused client is an OAuthTokenError naming the endpoint and client, never the secret', async () => {
    const idp = endpoint([
      { status: 401, body: { error: 'invalid_client', error_description: 'bad secret' } },
    ]);
    const p = new ClientCredentialsTokenProvider(credentials, { fetch: idp.fetch });
    const err = await p.token().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthTokenError);
    expect((err as OAuthTokenError).code).toBe('SHARESINK_KAFKA_OAUTH');
    // a connection error: the clients retry it with backoff; the start-up check reports it at once
    expect(err).toBeInstanceOf(KafkaConnectionError);
    expect((err as Error).message).toBe(
      'OAuth token endpoint https://idp.example.com/token: refused client "svc:1": HTTP 401 (invalid_client: bad secret); check clientId and clientSecret in sasl.jaas.config',
    );
    expect((err as Error).message).not.toContain('p@ss');
  });

  it('an answer without access_token is an error', async () => {
    const idp = endpoint([{ status: 200, body: { token_type: 'bearer' } }]);
    await expect(
      new ClientCredentialsTokenProvider(credentials, { fetch: idp.fetch }).token(),
    ).rejects.toThrow(/answered no access_token/);
  });

  it('an unreachable endpoint names the socket error, not fetch()’s "fetch failed"', async () => {
    const fetch = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
      });
    };
    await expect(new ClientCredentialsTokenProvider(credentials, { fetch }).token()).rejects.toThrow(
      'OAuth token endpoint https://idp.example.com/token: cannot be reached (sasl.oauthbearer.token.endpoint.url): ECONNREFUSED',
    );
  });
});
