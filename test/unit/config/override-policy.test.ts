import { describe, expect, it } from 'vitest';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  validateConnectorConfig,
  validateWorkerConfig,
} from '../../../src/config/index.js';
import { overridePolicyProblems, parseOverridePolicy } from '../../../src/config/override-policy.js';
import { base, problemsOf } from './config-helpers.js';

const workerWith = (extra: Record<string, string>) =>
  compileWorkerConfig({ 'bootstrap.servers': 'localhost:9092', ...extra });

describe('connector.client.config.override.policy', () => {
  it('defaults to All, so the one-line switch to share mode keeps working', () => {
    const worker = workerWith({});
    expect(worker.overridePolicy).toEqual({ name: 'All', allowlist: [] });
    const config = compileConnectorConfig(
      {
        ...base,
        'consumer.override.group.protocol': 'share',
        'consumer.override.max.poll.records': '100',
        'share.group.share.record.lock.duration.ms': '20000',
      },
      worker,
    );
    expect(config.groupProtocol).toBe('share');
  });

  it("is no longer listed among Connect's settings with no effect", () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'connector.client.config.override.policy': 'None',
    });
    expect(check.unused.map((u) => u.key)).toEqual([]);
    expect(check.warnings).toEqual([]);
  });

  it("reads Connect's aliases in any case and its class names", () => {
    expect(parseOverridePolicy('none')).toBe('None');
    expect(parseOverridePolicy('ALLOWLIST')).toBe('Allowlist');
    expect(
      parseOverridePolicy(
        'org.apache.kafka.connect.connector.policy.PrincipalConnectorClientConfigOverridePolicy',
      ),
    ).toBe('Principal');
    expect(parseOverridePolicy('AllConnectorClientConfigOverridePolicy')).toBe('All');
    expect(parseOverridePolicy('com.example.MyPolicy')).toBeUndefined();
    expect(parseOverridePolicy('ConnectorClientConfigOverridePolicy')).toBeUndefined();
  });

  it('refuses a policy it cannot run, naming the key and what is accepted', () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'connector.client.config.override.policy': 'com.example.MyPolicy',
    });
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toMatch(
      /^connector\.client\.config\.override\.policy: .*com\.example\.MyPolicy/,
    );
    expect(check.problems[0]).toContain('All, None, Principal, Allowlist');
  });

  it('warns that an allowlist does nothing under another policy', () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'connector.client.config.override.policy': 'None',
      'connector.client.config.override.allowlist': 'group.id',
    });
    expect(check.warnings).toEqual([
      'connector.client.config.override.allowlist: ignored, connector.client.config.override.policy is None; set connector.client.config.override.policy=Allowlist to use it',
    ]);
  });

  it('None lists every governed key at once, each with the policy and the fix; other keys pass', () => {
    const worker = workerWith({ 'connector.client.config.override.policy': 'None' });
    const problems = problemsOf(() =>
      compileConnectorConfig(
        {
          ...base,
          'consumer.override.group.protocol': 'share',
          'consumer.override.max.poll.records': '100',
          'producer.override.acks': '1',
          'admin.override.request.timeout.ms': '1000',
          'share.group.share.record.lock.duration.ms': '20000',
          'share.lock.renewal': 'off',
          'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
        },
        worker,
      ),
    );
    expect(problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual([
      'admin.override.request.timeout.ms',
      'consumer.override.group.protocol',
      'consumer.override.max.poll.records',
      'producer.override.acks',
      'share.group.share.record.lock.duration.ms',
    ]);
    const protocol = problems.find((p) => p.startsWith('consumer.override.group.protocol'))!;
    expect(protocol).toBe(
      "consumer.override.group.protocol: the worker's connector.client.config.override.policy=None does not allow connectors to override the consumer setting group.protocol; remove consumer.override.group.protocol from the connector file; or set consumer.group.protocol in the worker file (the default for every connector); or allow it in the worker file: connector.client.config.override.policy=Allowlist with connector.client.config.override.allowlist=group.protocol, or connector.client.config.override.policy=All",
    );
    const poll = problems.find((p) => p.startsWith('consumer.override.max.poll.records'))!;
    expect(poll).toContain('or set consumer.max.poll.records in the worker file for every connector');
    const share = problems.find((p) => p.startsWith('share.group.'))!;
    expect(share).toContain('override the share-group setting share.record.lock.duration.ms');
  });

  it('Allowlist lets through the names listed, without their prefix, for every kind of client', () => {
    const worker = workerWith({
      'connector.client.config.override.policy': 'Allowlist',
      'connector.client.config.override.allowlist': 'group.protocol, share.record.lock.duration.ms,acks',
    });
    expect(worker.overridePolicy?.allowlist).toEqual([
      'group.protocol',
      'share.record.lock.duration.ms',
      'acks',
    ]);
    const ok = validateConnectorConfig(
      {
        ...base,
        'consumer.override.group.protocol': 'share',
        'share.group.share.record.lock.duration.ms': '20000',
        'producer.override.acks': '1',
      },
      worker,
    );
    expect(ok.problems).toEqual([]);
    const refused = validateConnectorConfig({ ...base, 'consumer.override.group.id': 'other' }, worker);
    expect(refused.problems).toEqual([
      "consumer.override.group.id: the worker's connector.client.config.override.policy=Allowlist does not allow connectors to override the consumer setting group.id (the allowlist is group.protocol,share.record.lock.duration.ms,acks); remove consumer.override.group.id from the connector file; or set consumer.group.id in the worker file for every connector; or add group.id to the worker's connector.client.config.override.allowlist (connector.client.config.override.allowlist=group.protocol,share.record.lock.duration.ms,acks,group.id)",
    ]);
  });

  it('an empty allowlist allows nothing (KIP-1188)', () => {
    const worker = workerWith({ 'connector.client.config.override.policy': 'Allowlist' });
    const check = validateConnectorConfig({ ...base, 'consumer.override.fetch.min.bytes': '1' }, worker);
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toContain('(the allowlist is empty)');
  });

  it('Principal allows only the client identity', () => {
    const policy = { name: 'Principal', allowlist: [] } as const;
    expect(
      overridePolicyProblems(policy, {
        'consumer.override.sasl.mechanism': 'PLAIN',
        'consumer.override.security.protocol': 'SASL_PLAINTEXT',
        'producer.override.sasl.jaas.config': 'x',
      }),
    ).toEqual([]);
    const [problem, ...rest] = overridePolicyProblems(policy, {
      'consumer.override.ssl.truststore.location': '/ca.pem',
    });
    expect(rest).toEqual([]);
    expect(problem).toContain('(Principal allows only sasl.jaas.config, sasl.mechanism, security.protocol)');
  });

  it('a worker built by hand without a policy is All', () => {
    expect(overridePolicyProblems(undefined, { 'consumer.override.group.id': 'x' })).toEqual([]);
  });
});

describe('connector.client.config.override.allowlist', () => {
  it('refuses a name listed twice, as Connect does', () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'connector.client.config.override.policy': 'Allowlist',
      'connector.client.config.override.allowlist': 'group.id,acks,group.id',
    });
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toMatch(
      /^connector\.client\.config\.override\.allowlist: .*group\.id more than once/,
    );
  });
});
