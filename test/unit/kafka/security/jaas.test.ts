import { describe, expect, it } from 'vitest';
import { JaasSyntaxError, parseJaasConfig } from '../../../../src/kafka/security/jaas.js';

const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule';

describe('sasl.jaas.config as Java users write it', () => {
  it('reads the login module, the flag and quoted options', () => {
    expect(parseJaasConfig(`${PLAIN} required username="alice" password="s3cret";`)).toEqual({
      loginModule: PLAIN,
      flag: 'required',
      options: { username: 'alice', password: 's3cret' },
    });
  });

  it('reads escapes, single quotes, bare words, line breaks and spaces around "="', () => {
    const text = `  ${PLAIN}  REQUIRED\n  username = 'bob'\n  password="a \\"quoted\\" pass\\\\word; with = signs"\n  tokenauth=true ;  `;
    expect(parseJaasConfig(text)).toEqual({
      loginModule: PLAIN,
      flag: 'required',
      options: { username: 'bob', password: 'a "quoted" pass\\word; with = signs', tokenauth: 'true' },
    });
  });

  it('accepts an empty option list and every JAAS control flag', () => {
    for (const flag of ['required', 'requisite', 'sufficient', 'optional'])
      expect(parseJaasConfig(`${PLAIN} ${flag};`).flag).toBe(flag);
  });

  it.each([
    ['', /is empty/],
    [
      `${PLAIN} username="a" password="b";`,
      /has no control flag after .*PlainLoginModule \(write `required`/,
    ],
    [`${PLAIN} required username="a" password="b"`, /does not end with ";"/],
    [`${PLAIN} required username="a" password="b;`, /quoted value is not closed/],
    [`${PLAIN} required username "a";`, /option username has no "=value"/],
    [`${PLAIN} required username=;`, /option username has no value/],
    [`${PLAIN} required username="a"; ${PLAIN} required username="b";`, /more than one login module/],
    [`"${PLAIN}" required;`, /does not start with a login module class/],
  ])('refuses %j', (text, message) => {
    expect(() => parseJaasConfig(text)).toThrow(JaasSyntaxError);
    expect(() => parseJaasConfig(text)).toThrow(message);
  });

  it('never repeats an option value in its message', () => {
    const text = `${PLAIN} required username="alice" password="hunter2-secret"`;
    try {
      parseJaasConfig(text);
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2-secret');
    }
  });
});
