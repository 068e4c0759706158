import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigProviders } from '../../../src/config/config-providers.js';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  validateWorkerConfig,
} from '../../../src/config/index.js';
import { printableConfig } from '../../../src/config/printable.js';
import { kafkajsSecurityOptions } from '../../../src/kafka/security/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sharesink-providers-'));
const secrets = join(dir, 'kafka.properties');
writeFileSync(
  secrets,
  'jaas=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="from-file-secret";\nuser=alice\n',
);
writeFileSync(join(dir, 'token'), 'dir-secret');

const PROVIDERS = {
  'config.providers': 'file,env',
  'config.providers.file.class': 'org.apache.kafka.common.config.provider.FileConfigProvider',
  'config.providers.env.class': 'org.apache.kafka.common.config.provider.EnvVarConfigProvider',
};

describe('config providers: ${file:…} and ${env:…}', () => {
  it('resolves worker and connector values at compile time; printed configs keep the reference', () => {
    process.env['SHARESINK_TEST_TOPIC'] = 'orders';
    const worker = compileWorkerConfig({
      'bootstrap.servers': 'kafka:9092',
      ...PROVIDERS,
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': `\${file:${secrets}:jaas}`,
    });
    expect(kafkajsSecurityOptions(worker.security!.consumer).sasl).toMatchObject({
      username: 'alice',
      password: 'from-file-secret',
    });
    expect(worker.unused).toEqual([]);
    expect(worker.warnings).toEqual([]);
    const c = compileConnectorConfig(
      {
        name: 'c1',
        'connector.class': 'noop',
        topics: '${env:SHARESINK_TEST_TOPIC}',
        'consumer.override.sasl.jaas.config': `\${file:${secrets}:jaas}`,
      },
      worker,
    );
    expect(c.topics).toEqual(['orders']);
    expect(c.raw['topics']).toBe('orders');
    expect(printableConfig(c)).toMatchObject({
      topics: '${env:SHARESINK_TEST_TOPIC}',
      'consumer.override.sasl.jaas.config': '[hidden]',
    });
  });

  it('a missing file, key or variable is a problem naming the key and the reference, never a value', () => {
    delete process.env['SHARESINK_TEST_MISSING'];
    const check = validateWorkerConfig({
      'bootstrap.servers': 'kafka:9092',
      ...PROVIDERS,
      'ssl.truststore.password': '${env:SHARESINK_TEST_MISSING}',
      'ssl.keystore.password': `\${file:${secrets}:nope}`,
      'ssl.key.password': `\${file:${dir}/absent.properties:key}`,
      'client.id': '${vault:secret/x:y}',
    });
    expect(check.problems).toEqual([
      'ssl.truststore.password: ${env:SHARESINK_TEST_MISSING} cannot be resolved: the environment variable SHARESINK_TEST_MISSING is not set',
      `ssl.keystore.password: \${file:${secrets}:nope} cannot be resolved: ${secrets} has no key nope`,
      `ssl.key.password: \${file:${dir}/absent.properties:key} cannot be resolved: cannot read ${dir}/absent.properties (ENOENT)`,
    ]);
    expect(check.problems.join('\n')).not.toContain('from-file-secret');
  });

  it('a reference to Connect’s provider names without config.providers is a problem, not a literal', () => {
    const check = validateWorkerConfig({ 'bootstrap.servers': 'kafka:9092', 'client.id': '${env:HOME}' });
    expect(check.problems).toEqual([
      'client.id: ${env:HOME} names the config provider env, which config.providers does not list; accepted: config.providers=env in the worker file',
    ]);
  });

  it('unknown provider classes, the directory provider and allowed paths', () => {
    const bad = ConfigProviders.fromWorkerProps({
      'config.providers': 'vault',
      'config.providers.vault.class': 'com.acme.Vault',
    });
    expect(bad.problems).toEqual([
      expect.stringMatching(
        /^config\.providers\.vault\.class: "com\.acme\.Vault" is not a config provider sharesink has; accepted: .*FileConfigProvider/,
      ),
    ]);
    const { providers } = ConfigProviders.fromWorkerProps({
      'config.providers': 'dir,file',
      'config.providers.dir.class': 'org.apache.kafka.common.config.provider.DirectoryConfigProvider',
      'config.providers.file.class': 'FileConfigProvider',
      'config.providers.file.param.allowed.paths': '/etc/nowhere',
    });
    const r = providers.resolve({ a: `\${dir:${dir}:token}`, b: `\${file:${secrets}:user}` });
    expect(r.props['a']).toBe('dir-secret');
    expect(r.resolvedKeys).toEqual(['a']);
    expect(r.problems).toEqual([
      `b: \${file:${secrets}:user} cannot be resolved: ${secrets} is outside config.providers.file.param.allowed.paths`,
    ]);
  });

  it('leaves ${topic} (KafkaSink) and other text without a provider alone', () => {
    const r = ConfigProviders.NONE.resolve({ topic: '${topic}.mirror' });
    expect(r).toEqual({ props: { topic: '${topic}.mirror' }, resolvedKeys: [], problems: [] });
  });
});
