import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  validateConnectorConfig,
  validateWorkerConfig,
} from '../../../src/config/index.js';
import { printableConfig } from '../../../src/config/printable.js';
import { ConfigError } from '../../../src/errors.js';
import { kafkajsSecurityOptions } from '../../../src/kafka/security/index.js';
import { makeTestPki, type TestPki } from '../kafka/security/test-pki.js';

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
}, 60_000);

const scram = (user: string, password: string) =>
  `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`;

const connector = (extra: Record<string, string> = {}) => ({
  name: 'c1',
  'connector.class': 'noop',
  topics: 'orders',
  ...extra,
});

describe('client security in worker and connector files', () => {
  it('top-level keys reach every client; consumer.* / producer.* / admin.* override them per client', () => {
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'kafka:9093',
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': scram('worker', 'worker-secret'),
      'ssl.truststore.location': pki.caPemFile,
      'producer.sasl.jaas.config': scram('producer', 'producer-secret'),
    });
    const s = worker.security!;
    expect(kafkajsSecurityOptions(s.consumer).sasl).toMatchObject({
      mechanism: 'scram-sha-512',
      username: 'worker',
    });
    expect(kafkajsSecurityOptions(s.admin).sasl).toMatchObject({ username: 'worker' });
    expect(kafkajsSecurityOptions(s.producer).sasl).toMatchObject({ username: 'producer' });
    expect(kafkajsSecurityOptions(s.producer).ssl).toMatchObject({ ca: [expect.any(String)] });
    // consumer and admin share settings: compiled once, one object
    expect(s.consumer).toBe(s.admin);
    expect(worker.unused?.map((u) => u.key)).toEqual([]);
    expect(worker.warnings).toEqual([]);
  });

  it('a connector overrides per client, and keeps the worker’s compiled value where it does not', () => {
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'kafka:9093',
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': scram('worker', 'worker-secret'),
    });
    const c = compileConnectorConfig(
      connector({ 'consumer.override.sasl.jaas.config': scram('orders-reader', 'reader-secret') }),
      worker,
    );
    expect(kafkajsSecurityOptions(c.security!.consumer).sasl).toMatchObject({ username: 'orders-reader' });
    expect(c.security!.admin).toBe(worker.security!.admin);
    expect(c.security!.producer).toBe(worker.security!.producer);
  });

  it('sharesink validate refuses what the issue’s user wrote without a mechanism, naming the key', () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'kafka:9093',
      'security.protocol': 'SASL_SSL',
      'sasl.jaas.config': scram('alice', 'alice-secret'),
      'ssl.truststore.location': '/etc/kafka/truststore.jks',
    });
    expect(check.config).toBeUndefined();
    expect(check.problems).toEqual([
      expect.stringMatching(/^sasl\.mechanism: security\.protocol=SASL_SSL needs a SASL mechanism/),
      'ssl.truststore.location: cannot read /etc/kafka/truststore.jks (ENOENT); accepted: a readable file',
    ]);
    const worker = compileWorkerConfig({ 'bootstrap.servers': 'kafka:9093' });
    const problems = validateConnectorConfig(
      connector({
        'consumer.override.security.protocol': 'SASL_SSL',
        'consumer.override.sasl.mechanism': 'OAUTHBEARER',
      }),
      worker,
    ).problems;
    expect(problems).toEqual([
      expect.stringMatching(/^consumer\.override\.sasl\.oauthbearer\.token\.endpoint\.url: is required/),
    ]);
  });

  it('secrets print [hidden]: in errors, in printableConfig, and when a config is logged as JSON', () => {
    const secret = 'worker-secret-xyz';
    const err = (() => {
      try {
        compileWorkerConfig({
          'bootstrap.servers': 'kafka:9093',
          'security.protocol': 'SASL_SSL',
          'sasl.mechanism': 'SCRAM-SHA-512',
          'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule username="a" password="${secret}";`,
          'ssl.truststore.password': secret,
          'ssl.truststore.location': pki.truststoreP12,
        });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems.length).toBe(2);
    expect(err.message).not.toContain(secret);

    const worker = compileWorkerConfig({
      'bootstrap.servers': 'kafka:9093',
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': scram('a', secret),
      'ssl.truststore.location': pki.truststoreP12,
      'ssl.truststore.password': pki.storePassword,
    });
    const c = compileConnectorConfig(
      connector({
        'consumer.override.sasl.jaas.config': scram('b', secret),
        'producer.override.ssl.keystore.password': secret,
      }),
      worker,
    );
    const shown = printableConfig(c);
    expect(shown['consumer.override.sasl.jaas.config']).toBe('[hidden]');
    expect(shown['producer.override.ssl.keystore.password']).toBe('[hidden]');
    expect(shown['topics']).toBe('orders');
    expect(JSON.stringify(c.security)).not.toContain(secret);
    expect(JSON.stringify(worker.security)).not.toContain(pki.storePassword);
  });
});

describe('security keys are not consumer settings', () => {
  it('are compiled into security and left out of `consumer` (classic mode would list them as unused)', () => {
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'kafka:9093',
      'consumer.security.protocol': 'SASL_PLAINTEXT',
      'consumer.sasl.mechanism': 'PLAIN',
      'consumer.sasl.jaas.config':
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="w" password="w-secret";',
      'consumer.max.poll.records': '100',
    });
    expect(worker.consumer).toEqual({ 'max.poll.records': '100' });
    const c = compileConnectorConfig(
      connector({
        'consumer.override.group.protocol': 'classic',
        'consumer.override.sasl.jaas.config':
          'org.apache.kafka.common.security.plain.PlainLoginModule required username="c" password="c-secret";',
      }),
      worker,
    );
    expect(Object.keys(c.consumer).sort()).toEqual(['group.id', 'group.protocol', 'max.poll.records']);
    expect(kafkajsSecurityOptions(c.security!.consumer).sasl).toMatchObject({ username: 'c' });
  });
});
